import assert from 'node:assert/strict';
import { dnsNameTable } from './name-table.js';

describe('dnsNameTable', () => {
  it('given orchestrator and external entries, should answer full hosts everywhere and short forms by namespace', () => {
    const t = dnsNameTable({
      'reviews.default.svc.cluster.local': { ips: ['10.96.0.10'], registry: 'Kubernetes', shortname: 'reviews', namespace: 'default' },
      'ratings.other.svc.cluster.local': { ips: ['10.96.0.20'], registry: 'Kubernetes', shortname: 'ratings', namespace: 'other' },
      'API.example.com.': { ips: ['240.0.0.1'], registry: 'External', altHosts: ['api.internal'] },
      'empty.example.com': { ips: [], registry: 'External' },
    }, 'default');
    assert.deepEqual(Object.fromEntries(t), {
      'reviews.default.svc.cluster.local': ['10.96.0.10'],
      'ratings.other.svc.cluster.local': ['10.96.0.20'],
      'api.example.com': ['240.0.0.1'],
      'api.internal': ['240.0.0.1'],
      'reviews.default': ['10.96.0.10'],
      'reviews.default.svc': ['10.96.0.10'],
      reviews: ['10.96.0.10'],
      'ratings.other': ['10.96.0.20'],
      'ratings.other.svc': ['10.96.0.20'],
    });
  });
});
