import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { lookupType } from '../protos/index.js';
import { decodeDiscoveryRequestLazily, RequestDecodeError } from './request-wire.js';

const Request = lookupType('envoy.service.discovery.v3.DiscoveryRequest');
const encode = (fields: Record<string, unknown>): Buffer => Buffer.from(Request.encode(Request.fromObject(fields)).finish());

/** A protobuf record: tag byte(s) for a length-delimited field, the length, the bytes. */
const record = (field: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([(field << 3) | 2, body.length]), body]);

describe('decodeDiscoveryRequestLazily', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['an empty request', {}],
    ['a first request with a node', { typeUrl: 'type.googleapis.com/envoy.config.cluster.v3.Cluster', node: { id: 'sidecar~10.0.0.1~a.ns~ns.svc.cluster.local', cluster: 'a.ns', metadata: { fields: { NAMESPACE: { stringValue: 'ns' } } }, locality: { region: 'r', zone: 'z' } } }],
    ['an ACK naming clusters', { versionInfo: 'v1', responseNonce: 'n1', typeUrl: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment', resourceNames: ['outbound|80||a.ns.svc.cluster.local', 'outbound|80|v1|b.ns.svc.cluster.local', 'ünïcode|名'] }],
    ['a NACK', { versionInfo: 'v1', responseNonce: 'n2', typeUrl: 't', errorDetail: { code: 3, message: 'bad cluster' } }],
    ['a name longer than 127 bytes', { typeUrl: 't', resourceNames: ['x'.repeat(300), 'y'] }],
  ];
  for (const [what, fields] of cases) {
    it(`given ${what}, should decode the same fields as protobufjs`, () => {
      const bytes = encode(fields);
      const want = Request.toObject(Request.decode(bytes), { defaults: true }) as Record<string, unknown>;
      const got = decodeDiscoveryRequestLazily(bytes);
      assert.equal(got.versionInfo, want.versionInfo);
      assert.equal(got.typeUrl, want.typeUrl);
      assert.equal(got.responseNonce, want.responseNonce);
      assert.deepEqual([...got.resourceNames], want.resourceNames);
      const asObject = (type: string, m: unknown): unknown => (m ? lookupType(type).toObject(m as never, { defaults: true }) : null);
      assert.deepEqual(asObject('envoy.config.core.v3.Node', got.node), want.node ?? null);
      assert.deepEqual(asObject('google.rpc.Status', got.errorDetail), want.errorDetail ?? null);
    });
  }

  it('given two requests with the same names and other nonces, should give equal name keys; other names, unequal', () => {
    const a = decodeDiscoveryRequestLazily(encode({ responseNonce: '1', typeUrl: 't', resourceNames: ['a', 'b'] }));
    const b = decodeDiscoveryRequestLazily(encode({ responseNonce: '2', versionInfo: 'v', typeUrl: 't', resourceNames: ['a', 'b'] }));
    const c = decodeDiscoveryRequestLazily(encode({ responseNonce: '2', typeUrl: 't', resourceNames: ['ab'] }));
    const d = decodeDiscoveryRequestLazily(encode({ responseNonce: '2', typeUrl: 't', resourceNames: ['b', 'a'] }));
    assert.equal(Buffer.compare(a.resourceNamesKey!, b.resourceNamesKey!), 0);
    assert.notEqual(Buffer.compare(a.resourceNamesKey!, c.resourceNamesKey!), 0);
    assert.notEqual(Buffer.compare(a.resourceNamesKey!, d.resourceNamesKey!), 0);
  });

  it('given names split by another field, should read them all and key them as the same names in one run', () => {
    const split = Buffer.concat([record(3, Buffer.from('a')), record(4, Buffer.from('t')), record(3, Buffer.from('b'))]);
    const run = Buffer.concat([record(4, Buffer.from('t')), record(3, Buffer.from('a')), record(3, Buffer.from('b'))]);
    const got = decodeDiscoveryRequestLazily(split);
    assert.deepEqual([...got.resourceNames], ['a', 'b']);
    assert.equal(got.typeUrl, 't');
    assert.equal(Buffer.compare(got.resourceNamesKey!, decodeDiscoveryRequestLazily(run).resourceNamesKey!), 0);
  });

  describe('with the name runs of earlier requests', () => {
    const names = ['outbound|80||a.ns.svc.cluster.local', 'outbound|80|v1|b.ns.svc.cluster.local', 'ünïcode|名', 'x'.repeat(300)];
    const earlier = decodeDiscoveryRequestLazily(encode({ responseNonce: '1', typeUrl: 't', resourceNames: names }));
    const runs = [Buffer.from('unrelated'), earlier.resourceNamesKey!];

    it('given the same names again, should read them as that run (the same key) and decode every other field', () => {
      const got = decodeDiscoveryRequestLazily(encode({ versionInfo: 'v2', responseNonce: '2', typeUrl: 't', resourceNames: names }), runs);
      assert.equal(got.resourceNamesKey, runs[1], 'the known key itself');
      assert.deepEqual([...got.resourceNames], names);
      assert.deepEqual([got.versionInfo, got.responseNonce, got.typeUrl], ['v2', '2', 't']);
    });

    it('given those names and more (after them, or after another field), should read every name', () => {
      const more = decodeDiscoveryRequestLazily(encode({ responseNonce: '2', typeUrl: 't', resourceNames: [...names, 'z'] }), runs);
      assert.deepEqual([...more.resourceNames], [...names, 'z']);
      assert.notEqual(Buffer.compare(more.resourceNamesKey!, runs[1]!), 0);
      const split = decodeDiscoveryRequestLazily(Buffer.concat([runs[1]!, record(4, Buffer.from('t')), record(3, Buffer.from('z'))]), runs);
      assert.deepEqual([...split.resourceNames], [...names, 'z']);
      // NOTE: a names record whose tag is a two-byte varint (legal protobuf) is still a name.
      const longTag = decodeDiscoveryRequestLazily(Buffer.concat([runs[1]!, Buffer.from([0x9a, 0x00, 1]), Buffer.from('z')]), runs);
      assert.deepEqual([...longTag.resourceNames], [...names, 'z']);
    });

    it('given fewer names or other names, should read them as they are', () => {
      const fewer = decodeDiscoveryRequestLazily(encode({ typeUrl: 't', resourceNames: names.slice(0, 2) }), runs);
      assert.deepEqual([...fewer.resourceNames], names.slice(0, 2));
      const none = decodeDiscoveryRequestLazily(encode({ typeUrl: 't' }), runs);
      assert.deepEqual([...none.resourceNames], []);
    });

    it('given any bytes after a known run (seeded property), should decode them as without the run or refuse them alike', () => {
      const outcome = (f: () => ReturnType<typeof decodeDiscoveryRequestLazily>): unknown => {
        try {
          const r = f();
          return { names: [...r.resourceNames], key: Buffer.from(r.resourceNamesKey!).toString('hex'), fields: [r.versionInfo, r.typeUrl, r.responseNonce] };
        } catch (e) {
          return { refused: (e as Error).message };
        }
      };
      const name = fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 40 }));
      const piece = fc.oneof(
        fc.constant(runs[1]!),
        fc.array(name, { maxLength: 4 }).map((ns) => Buffer.concat(ns.map((n) => record(3, Buffer.from(n))))),
        fc.constantFrom(record(4, Buffer.from('t')), record(1, Buffer.from('v')), record(5, Buffer.from('n')), Buffer.from([0x9a, 0x00, 1, 0x7a])),
        fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b)),
      );
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 5 }), (pieces) => {
          const bytes = Buffer.concat(pieces);
          assert.deepEqual(outcome(() => decodeDiscoveryRequestLazily(bytes, runs)), outcome(() => decodeDiscoveryRequestLazily(bytes)));
        }),
        { seed: 2026_12_07, numRuns: 2000 },
      );
    });

    it('given a malformed field after the known names, should still refuse it', () => {
      assert.throws(() => decodeDiscoveryRequestLazily(Buffer.concat([runs[1]!, record(4, Buffer.from([0xff]))]), runs), /type_url is not valid UTF-8/);
      assert.throws(() => decodeDiscoveryRequestLazily(Buffer.concat([runs[1]!, Buffer.from([0x22, 0x05])]), runs), /runs past the end/);
    });
  });

  it('given unknown fields of every wire type, should skip them', () => {
    const bytes = Buffer.concat([Buffer.from([(9 << 3) | 0, 0x96, 0x01]), Buffer.from([(10 << 3) | 1, 1, 2, 3, 4, 5, 6, 7, 8]), Buffer.from([(11 << 3) | 5, 1, 2, 3, 4]), record(12, Buffer.from('zz')), record(3, Buffer.from('a'))]);
    assert.deepEqual([...decodeDiscoveryRequestLazily(bytes).resourceNames], ['a']);
  });

  const bad: Array<[string, Buffer, RegExp]> = [
    ['a name that is not UTF-8', Buffer.concat([record(3, Buffer.from('ok')), record(3, Buffer.from([0x61, 0xc3]))]), /resource_names\[1\] is not valid UTF-8/],
    ['a long name that is not UTF-8', Buffer.concat([Buffer.from([0x1a, 0x81, 0x01]), Buffer.alloc(128, 0x61), Buffer.from([0xff])]), /resource_names\[0\] is not valid UTF-8/],
    ['a type URL that is not UTF-8', record(4, Buffer.from([0xff])), /type_url is not valid UTF-8/],
    ['a field that runs past the end', Buffer.from([0x1a, 0x05, 0x61]), /field 3 of 5 bytes at byte 0 runs past the end/],
    ['a truncated varint', Buffer.from([0x08, 0x80]), /truncated varint/],
    ['a group', Buffer.from([(3 << 3) | 3]), /unsupported wire type 3 of field 3/],
    ['field number 0', Buffer.from([0x02, 0x00]), /field number 0/],
  ];
  for (const [what, bytes, message] of bad) {
    it(`given ${what}, should refuse it saying so`, () => {
      assert.throws(() => decodeDiscoveryRequestLazily(bytes), (e: unknown) => e instanceof RequestDecodeError && message.test(e.message));
    });
  }
});
