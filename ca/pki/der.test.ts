import assert from 'node:assert/strict';
import { DerError, TAG, decodeOid, decodeTime, octetString, oid, readElement, readOne, time, unsignedInteger } from './der.js';

describe('DER', () => {
  const oids = ['2.5.29.17', '1.2.840.113549.1.1.11', '1.3.6.1.5.5.7.3.2', '2.999.3'];
  for (const o of oids) it(`given OID ${o} should round-trip`, () => assert.equal(decodeOid(readOne(oid(o), 'oid'), 'oid'), o));
  it('given no element where an OID was expected (an empty SEQUENCE) should throw DerError naming what', () => {
    assert.throws(() => decodeOid(undefined, 'Extension id'), (e: unknown) => e instanceof DerError && e.message === 'Extension id: expected an OBJECT IDENTIFIER, found nothing');
  });

  const times = [
    { name: 'given 2030 should use UTCTime', date: '2030-05-06T07:08:09Z', tag: TAG.UTC_TIME },
    { name: 'given 2049 should use UTCTime', date: '2049-12-31T23:59:59Z', tag: TAG.UTC_TIME },
    { name: 'given 2050 should use GeneralizedTime', date: '2050-01-01T00:00:00Z', tag: TAG.GENERALIZED_TIME },
  ];
  for (const c of times) {
    it(c.name, () => {
      const el = readOne(time(new Date(c.date)), 'time');
      assert.equal(el.tag, c.tag);
      assert.equal(decodeTime(el, 'time').toISOString(), new Date(c.date).toISOString());
    });
  }

  const lengths = [5, 127, 128, 255, 256, 70_000];
  for (const n of lengths) {
    it(`given ${n} content bytes should encode and decode the length`, () => {
      const el = readOne(octetString(Buffer.alloc(n, 7)), 'octets', TAG.OCTET_STRING);
      assert.equal(el.content.length, n);
    });
  }

  it('given an unsigned integer with the high bit set should prepend a zero byte', () => {
    assert.deepEqual([...unsignedInteger(Buffer.from([0x80, 1]))], [0x02, 0x03, 0x00, 0x80, 0x01]);
    assert.deepEqual([...unsignedInteger(Buffer.from([0, 0, 5]))], [0x02, 0x01, 0x05]);
  });

  const broken = [
    { name: 'given a truncated element should say where', bytes: [0x30, 0x05, 0x01], message: /runs past the end/ },
    { name: 'given a one-byte input should say truncated', bytes: [0x30], message: /truncated at byte 0/ },
    { name: 'given trailing bytes should count them', bytes: [0x05, 0x00, 0x00], message: /1 trailing bytes/ },
  ];
  for (const c of broken) {
    it(c.name, () => assert.throws(() => readOne(Buffer.from(c.bytes), 'x'), (err: unknown) => err instanceof DerError && c.message.test(err.message)));
  }

  it('given an element inside a buffer should read only that element', () => {
    const el = readElement(Buffer.from([0x05, 0x00, 0x02, 0x01, 0x07]), 2, 'int');
    assert.equal(el.tag, TAG.INTEGER);
    assert.deepEqual([...el.content], [7]);
  });
});
