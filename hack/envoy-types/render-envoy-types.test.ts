import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { protoRoot } from '../../xds/protos/index.js';
import { GENERATED_HEADER, renderEnvoyTypes } from './render-envoy-types.js';

const DIR = fileURLToPath(new URL('../../../xds/envoy-types/', import.meta.url));

describe('renderEnvoyTypes', function () {
  this.timeout(60_000);

  it('given the protos meshd loads should match the committed xds/envoy-types files', () => {
    const files = renderEnvoyTypes(protoRoot());
    for (const [name, text] of files) {
      const path = join(DIR, name);
      assert.ok(existsSync(path), `xds/envoy-types/${name} is missing: run npm run build && npm run gen:envoy-types`);
      assert.ok(readFileSync(path, 'utf8') === text, `xds/envoy-types/${name} is stale: run npm run build && npm run gen:envoy-types`);
    }
    const extra = readdirSync(DIR).filter((n) => n.endsWith('.ts') && !files.has(n) && readFileSync(join(DIR, n), 'utf8').startsWith(GENERATED_HEADER));
    assert.deepEqual(extra, [], 'generated files no longer rendered: run npm run gen:envoy-types');
  });

  it('given a message with a map, an enum, a 64-bit integer, bytes, a nested message and an Any should render their plain-object types', () => {
    const root = protobuf.parse(`
      syntax = "proto3";
      package google.protobuf;
      message Any { string type_url = 1; bytes value = 2; }
    `).root;
    protobuf.parse(`
      syntax = "proto3";
      package t.v3;
      message Box {
        enum Kind { A = 0; B = 1; }
        message Inner { repeated int64 big = 1; }
        map<string, Inner> by_name = 1;
        Kind kind = 2;
        bytes raw = 3;
        repeated google.protobuf.Any configs = 4;
        uint32 count = 5;
      }
    `, root);
    const files = renderEnvoyTypes(root, ['t.v3.Box']);
    assert.deepEqual([...files.keys()], ['t-v3.ts']);
    const text = files.get('t-v3.ts')!;
    assert.match(text, /import type \{ AnyMessage \} from '\.\/any-message\.js';/);
    assert.match(text, /export type Box = \{\n {2}byName\?: Record<string, Box_Inner>;\n {2}kind\?: Box_Kind;\n {2}raw\?: Uint8Array \| string;\n {2}configs\?: AnyMessage\[\];\n {2}count\?: number;\n\};/);
    assert.match(text, /export type Box_Kind = 'A' \| 'B' \| number;/);
    assert.match(text, /export type Box_Inner = \{\n {2}big\?: \(number \| string\)\[\];\n\};/);
  });
});
