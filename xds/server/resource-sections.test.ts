import assert from 'node:assert/strict';
import { TYPE_URL } from './contracts.js';
import { ResourceSections } from './resource-sections.js';
import { isShared } from './shared-bytes.js';
import { encodeDeltaDiscoveryResponse, encodeDiscoveryResponse } from './wire.js';

/** `n` distinct bodies of `size` bytes each. */
const bodiesOf = (n: number, size: number, fill = 0): Uint8Array[] => Array.from({ length: n }, (_, i) => Buffer.alloc(size, (fill + i) % 256));

describe('resource sections shared by responses (resource-sections.ts)', () => {
  it('given the same bodies in the same order should hand out one section, with the bytes an inline response has', () => {
    const sections = new ResourceSections({ minBytes: 1 });
    const bodies = bodiesOf(5, 100);
    const a = sections.section(TYPE_URL.cluster, bodies)!;
    const b = sections.section(TYPE_URL.cluster, [...bodies])!;
    assert.equal(b, a, 'the second list (a copy of the first) finds the first section');
    const withSection = encodeDiscoveryResponse({ versionInfo: 'v', typeUrl: TYPE_URL.cluster, nonce: 'n', resources: a }).toBuffer();
    const inline = encodeDiscoveryResponse({ versionInfo: 'v', typeUrl: TYPE_URL.cluster, nonce: 'n', resources: bodies }).toBuffer();
    assert.deepEqual(withSection, inline);
  });

  it('given other bodies, another order, another type or equal bytes in other objects should lay out a section of their own', () => {
    const sections = new ResourceSections({ minBytes: 1 });
    const bodies = bodiesOf(4, 50);
    const first = sections.section(TYPE_URL.cluster, bodies)!;
    const others = [
      sections.section(TYPE_URL.cluster, [bodies[1]!, bodies[0]!, bodies[2]!, bodies[3]!]),
      sections.section(TYPE_URL.cluster, bodies.slice(0, 3)),
      sections.section(TYPE_URL.listener, bodies),
      sections.section(TYPE_URL.cluster, bodies.map((b) => Buffer.from(b))),
    ];
    for (const [i, s] of others.entries()) assert.notEqual(s, first, `case ${i}`);
    assert.equal(sections.section(TYPE_URL.cluster, bodies), first, 'the first is still found');
  });

  it('given bodies smaller than the minimum should leave them inline', () => {
    const sections = new ResourceSections({ minBytes: 1024 });
    assert.equal(sections.section(TYPE_URL.cluster, bodiesOf(3, 100)), undefined);
    assert.ok(sections.section(TYPE_URL.cluster, bodiesOf(3, 400)));
  });

  it('given more sections than the byte budget should drop the least recently used first', () => {
    const sections = new ResourceSections({ minBytes: 1, budgetBytes: 3 * 1100 });
    const lists = [0, 1, 2, 3].map((k) => bodiesOf(1, 1000, k * 10));
    const [s0, s1, s2] = lists.slice(0, 3).map((l) => sections.section(TYPE_URL.cluster, l)!);
    assert.equal(sections.section(TYPE_URL.cluster, lists[0]!), s0, 'used again: now the most recent');
    sections.section(TYPE_URL.cluster, lists[3]!);
    assert.ok(sections.heldBytes <= 3 * 1100, `held ${sections.heldBytes}`);
    assert.equal(sections.section(TYPE_URL.cluster, lists[0]!), s0, 'kept');
    assert.equal(sections.section(TYPE_URL.cluster, lists[2]!), s2, 'kept');
    assert.notEqual(sections.section(TYPE_URL.cluster, lists[1]!), s1, 'dropped, laid out again');
  });

  it('given sections not used for the idle time should drop them, freeing those no response still holds', () => {
    let now = 0;
    const sections = new ResourceSections({ minBytes: 1, idleMs: 1000, now: () => now });
    const old = sections.section(TYPE_URL.cluster, bodiesOf(2, 500))!;
    now = 600;
    const recent = sections.section(TYPE_URL.cluster, bodiesOf(2, 500, 7))!;
    now = 1200;
    sections.sweep();
    assert.equal(sections.heldBytes, recent.bytes.length, 'only the recent one is held');
    // NOTE: each section was handed to one response that was never written: its memory stays for the collector.
    assert.ok(isShared(old.bytes) && old.bytes.length > 0, 'a dropped section a response may still send is not freed');
  });

  it('given the same delta resources should hand out one section, with the bytes an inline delta response has', () => {
    const sections = new ResourceSections({ minBytes: 1 });
    const resources = bodiesOf(3, 100).map((body, i) => ({ name: `r${i}`, version: `v${i}`, body }));
    const a = sections.deltaSection(TYPE_URL.route, resources)!;
    assert.equal(sections.deltaSection(TYPE_URL.route, resources.map((r) => ({ ...r }))), a, 'the same bodies, names and versions');
    const fields = { systemVersionInfo: 's', typeUrl: TYPE_URL.route, nonce: 'n', removedResources: ['gone'] };
    assert.deepEqual(encodeDeltaDiscoveryResponse({ ...fields, resources: a }).toBuffer(), encodeDeltaDiscoveryResponse({ ...fields, resources }).toBuffer());
    const renamed = resources.map((r, i) => (i === 1 ? { ...r, name: 'other' } : r));
    const reversioned = resources.map((r, i) => (i === 2 ? { ...r, version: 'v9' } : r));
    assert.notEqual(sections.deltaSection(TYPE_URL.route, renamed), a, 'another name');
    assert.notEqual(sections.deltaSection(TYPE_URL.route, reversioned), a, 'another version');
    assert.notEqual(sections.section(TYPE_URL.route, resources.map((r) => r.body)), a, 'a SotW section of the same bodies');
  });
});
