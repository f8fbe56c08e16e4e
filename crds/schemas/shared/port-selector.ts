import { obj, portNumber } from '../../schema/builders.js';

/** Istio's PortSelector: a port `number` (1..65535). */
export const portSelector = obj({ number: portNumber() });
