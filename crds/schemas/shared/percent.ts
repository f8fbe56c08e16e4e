import { num, obj } from '../../schema/builders.js';

/** Istio's Percent: `value` in 0..100 (checked semantically, as Istio does). */
export const percent = obj({ value: num({ 'x-mesh-check': 'percent' }) });
