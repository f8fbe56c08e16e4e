import assert from 'node:assert/strict';
import { parseConfigKey, proxyRequestPush, pushRequest, type PushRequest } from '../../core/index.js';
import { incrementalEdsHosts, PROXYLESS_EDS_UNAFFECTED_KINDS } from './eds.js';
import { SIDECAR_EDS_UNAFFECTED } from './sidecar/sidecar-generator.js';

const push = (full: boolean, ...configs: string[]): PushRequest => pushRequest(full ? 'config' : 'endpoint', { full, configs: configs.map(parseConfigKey) });
const SE = 'ServiceEntry/default/reviews.default.svc.cluster.local';

// NOTE: istiod's incremental EDS and canSendPartialFullPushes.
const cases: { name: string; push: PushRequest; unaffected?: ReadonlySet<string>; want: string[] | undefined }[] = [
  { name: 'given an endpoint-only push should name its hosts', push: push(false, SE, 'ServiceEntry/data/db.data.svc.cluster.local'), want: ['reviews.default.svc.cluster.local', 'db.data.svc.cluster.local'] },
  { name: 'given a full push naming only a service should name its host', push: push(true, SE), want: ['reviews.default.svc.cluster.local'] },
  { name: 'given a full push naming a service and kinds that cannot change endpoints should name the host', push: push(true, SE, 'VirtualService/default/reviews', 'AuthorizationPolicy/default/deny'), want: ['reviews.default.svc.cluster.local'] },
  { name: 'given a full push naming a DestinationRule should send everything', push: push(true, SE, 'DestinationRule/default/reviews'), want: undefined },
  { name: 'given a full push naming a Sidecar should send everything to a sidecar', push: push(true, SE, 'Sidecar/default/default'), unaffected: SIDECAR_EDS_UNAFFECTED, want: undefined },
  { name: 'given a full push naming a Sidecar should name the host for a proxyless client', push: push(true, SE, 'Sidecar/default/default'), unaffected: PROXYLESS_EDS_UNAFFECTED_KINDS, want: ['reviews.default.svc.cluster.local'] },
  { name: 'given a full push naming nothing should send everything', push: push(true), want: undefined },
  { name: "given a proxy's own request should send everything", push: proxyRequestPush(undefined), want: undefined },
];

describe('incrementalEdsHosts: which pushes send only some load assignments', () => {
  for (const c of cases) {
    it(c.name, () => {
      const hosts = incrementalEdsHosts(c.push, c.unaffected);
      assert.deepEqual(hosts ? [...hosts] : undefined, c.want);
    });
  }
});
