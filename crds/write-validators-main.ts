/** Writes the precompiled schema validators into dist/ (part of `npm run build`, after tsc). */
import { writeCompiledValidators } from './validation/write-compiled-validators.js';

const written = writeCompiledValidators();
console.log(`precompiled validators: ${written.length} kinds`);
