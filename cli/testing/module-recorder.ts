/**
 * Loaded with `--import` into a program under test: records every module the program loads (URLs, through
 * a synchronous module loader hook) and writes them, one a line, to `$MESH_LOADED_MODULES_FILE` at exit.
 */
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env['MESH_LOADED_MODULES_FILE'];
if (file) {
  const loaded: string[] = [];
  registerHooks({
    load(url, context, nextLoad) {
      loaded.push(url);
      return nextLoad(url, context);
    },
  });
  process.on('exit', () => writeFileSync(file, loaded.join('\n')));
}
