import { obj, str } from '../../schema/builders.js';
import { portSelector } from './port-selector.js';

/** Istio's Destination: a service `host` (required), optional `subset` and `port`. */
export const destination = obj(
  {
    host: str({ description: 'The name of a service from the service registry.' }),
    subset: str({ description: 'The name of a subset within the service.' }),
    port: portSelector,
  },
  ['host'],
);
