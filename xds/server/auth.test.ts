import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { AuthenticationError, type Authenticator, type Caller } from '../../ca/index.js';
import { XdsAuthenticator } from './auth.js';
import { parseNode } from './node.js';
import type { AdsCall } from './send.js';
import { StreamError } from './stream-session.js';

/** Authenticates a call whose `authorization` metadata names a caller in `callers`. */
function tableAuthenticator(callers: Readonly<Record<string, Caller>>): Authenticator {
  return {
    name: 'token',
    absentReason: 'no bearer token',
    authenticate: ({ metadata }) => {
      const value = metadata.get('authorization')[0];
      if (value === undefined) return Promise.resolve(undefined);
      const caller = callers[String(value)];
      return caller ? Promise.resolve(caller) : Promise.reject(new AuthenticationError('token: rejected by TokenReview'));
    },
  };
}

function callWith(token: string | undefined): AdsCall {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set('authorization', token);
  return { metadata, getAuthContext: () => ({}) } as unknown as AdsCall;
}

const caller = (namespace: string, sa: string): Caller => ({
  authenticatedBy: 'token',
  identities: [`spiffe://cluster.local/ns/${namespace}/sa/${sa}`],
  kubernetes: { namespace, serviceAccount: sa, nodeName: undefined },
});

function node(namespace: string, serviceAccount?: string): ReturnType<typeof parseNode> {
  const fields: Record<string, unknown> = { NAMESPACE: { stringValue: namespace } };
  if (serviceAccount) fields['SERVICE_ACCOUNT'] = { stringValue: serviceAccount };
  return parseNode({ id: `sidecar~10.0.0.1~p.${namespace}~${namespace}.svc.cluster.local`, metadata: { fields } } as never);
}

describe('XdsAuthenticator', () => {
  const auth = (identityCheck: boolean): XdsAuthenticator => new XdsAuthenticator({
    authenticators: [tableAuthenticator({ good: caller('app', 'sa1'), agent: caller('mesh-system', 'node-agent') })],
    identityCheck,
    trustedAccounts: [{ namespace: 'mesh-system', serviceAccount: 'node-agent' }],
  });
  const cases: { name: string; token?: string; node: ReturnType<typeof parseNode>; identityCheck?: boolean; want: string | RegExp }[] = [
    { name: 'given a caller of the node\'s namespace, should admit it', token: 'good', node: node('app'), want: 'spiffe://cluster.local/ns/app/sa/sa1' },
    { name: 'given a matching SERVICE_ACCOUNT, should admit it', token: 'good', node: node('app', 'sa1'), want: 'spiffe://cluster.local/ns/app/sa/sa1' },
    { name: 'given no credential, should refuse with UNAUTHENTICATED naming what is missing', node: node('app'), want: /^UNAUTHENTICATED xDS authentication failed \(token: no bearer token\)$/ },
    { name: 'given a rejected token, should refuse with UNAUTHENTICATED saying why', token: 'bad', node: node('app'), want: /^UNAUTHENTICATED .*rejected by TokenReview/ },
    { name: 'given another namespace than the caller\'s, should refuse with PERMISSION_DENIED', token: 'good', node: node('other'), want: /^PERMISSION_DENIED .*claims namespace other, but the caller is spiffe:\/\/cluster.local\/ns\/app\/sa\/sa1$/ },
    { name: 'given another SERVICE_ACCOUNT, should refuse with PERMISSION_DENIED', token: 'good', node: node('app', 'sa2'), want: /^PERMISSION_DENIED .*service account sa2/ },
    { name: 'given a trusted account, should admit any namespace', token: 'agent', node: node('other'), want: 'spiffe://cluster.local/ns/mesh-system/sa/node-agent' },
    { name: 'given the identity check off, should admit another namespace', token: 'good', node: node('other'), identityCheck: false, want: 'spiffe://cluster.local/ns/app/sa/sa1' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      let got: string;
      try {
        got = (await auth(c.identityCheck ?? true).check(callWith(c.token), c.node)).identities.join(',');
      } catch (err) {
        assert.ok(err instanceof StreamError);
        got = `${grpc.status[err.code]} ${err.message}`;
      }
      if (typeof c.want === 'string') assert.equal(got, c.want);
      else assert.match(got, c.want);
    });
  }
});
