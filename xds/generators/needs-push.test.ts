import assert from 'node:assert/strict';
import { pushRequest, type PushRequest } from '../../core/index.js';
import { cdsNeedsPush } from './cds.js';
import { edsNeedsPush } from './eds.js';
import { ldsNeedsPush } from './lds.js';
import { rdsNeedsPush } from './rds.js';

const full = (...configs: string[]): PushRequest => pushRequest('config', { full: true, configs });
const eds = (...configs: string[]): PushRequest => pushRequest('endpoint', { full: false, configs });

const cases: { name: string; push: PushRequest; want: [boolean, boolean, boolean, boolean] }[] = [
  { name: 'given a full push naming nothing should push every type', push: full(), want: [true, true, true, true] },
  { name: 'given an EDS-only push should push EDS only', push: eds('ServiceEntry/qs/echo.qs.svc.cluster.local'), want: [false, true, false, false] },
  { name: 'given a VirtualService change should push RDS only', push: full('VirtualService/qs/echo'), want: [false, false, false, true] },
  { name: 'given a DestinationRule change should push CDS, EDS and RDS', push: full('DestinationRule/qs/echo'), want: [true, true, false, true] },
  { name: 'given an AuthorizationPolicy change should push LDS only', push: full('AuthorizationPolicy/qs/deny'), want: [false, false, true, false] },
  { name: 'given a PeerAuthentication change should push CDS and LDS', push: full('PeerAuthentication/qs/default'), want: [true, false, true, false] },
  { name: 'given a service change should push every type', push: full('ServiceEntry/qs/echo'), want: [true, true, true, true] },
];

describe('needsPush per type (CDS, EDS, LDS, RDS)', () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual([cdsNeedsPush(c.push), edsNeedsPush(c.push), ldsNeedsPush(c.push), rdsNeedsPush(c.push)], c.want));
  }
});
