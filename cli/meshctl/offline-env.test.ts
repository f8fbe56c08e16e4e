// `meshctl x translate` and `meshctl x simulate` build with the options meshd reads from the same
// environment (offlineOptionsFromEnv: meshd's generatorOptionsFromEnv and modelOptionsFromEnv), through
// the real bin/meshctl and bin/pilot-discovery processes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { programEnv, REPO_ROOT, runProgram } from '../testing/program-process.js';

const EX = join(REPO_ROOT, 'examples/bookinfo-sidecar');
const TRANSLATE = ['x', 'translate', '-f', EX, '-p', 'default/productpage-v1'];

interface Dump {
  configs: Record<string, unknown>[];
}

/** The outbound HTTP listener `0.0.0.0_9080` of a translate dump. */
function listener9080(dump: Dump): Record<string, unknown> {
  const listeners = (dump.configs[0]!['dynamic_listeners'] as { active_state: { listener: Record<string, unknown> } }[]).map((x) => x.active_state.listener);
  const l = listeners.find((x) => x['name'] === '0.0.0.0_9080');
  assert.ok(l, `no listener 0.0.0.0_9080 in ${listeners.map((x) => String(x['name'])).join(', ')}`);
  return l;
}

/** The `applicationProtocols` of the HTTP chain and the HCM's HTTP/1.0 option of `0.0.0.0_9080`. */
function http10Shape(dump: Dump): { alpn: unknown; acceptHttp10: unknown } {
  const chain = (listener9080(dump)['filter_chains'] as { filter_chain_match: { application_protocols: unknown }; filters: { typed_config: Record<string, unknown> }[] }[])[0]!;
  const hcm = chain.filters[0]!.typed_config;
  return { alpn: chain.filter_chain_match.application_protocols, acceptHttp10: (hcm['http_protocol_options'] as { accept_http_10?: unknown } | undefined)?.accept_http_10 };
}

async function translate(env: Record<string, string>): Promise<Dump> {
  const r = await runProgram('meshctl', TRANSLATE, programEnv(env));
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Dump;
}

describe('meshctl x translate / x simulate with meshd options from the environment', function () {
  this.timeout(60_000);

  it('given PILOT_HTTP10=true should show the HTTP/1.0 listeners meshd with that environment serves', async () => {
    const off = http10Shape(await translate({}));
    const on = http10Shape(await translate({ PILOT_HTTP10: 'true' }));
    assert.deepEqual(off, { alpn: ['http/1.1', 'h2c'], acceptHttp10: undefined });
    assert.deepEqual(on, { alpn: ['http/1.0', 'http/1.1', 'h2c'], acceptHttp10: true });
  });

  const refused: { name: string; env: Record<string, string> }[] = [
    { name: 'given a value that does not parse (PILOT_HTTP10=yes)', env: { PILOT_HTTP10: 'yes' } },
    { name: 'given an option meshd refuses to serve (PILOT_ENABLE_MYSQL_FILTER=true)', env: { PILOT_ENABLE_MYSQL_FILTER: 'true' } },
  ];
  for (const c of refused) {
    it(`${c.name} should fail translate and simulate with meshd's message`, async () => {
      const meshd = await runProgram('pilot-discovery', ['discovery'], programEnv(c.env));
      assert.notEqual(meshd.code, 0);
      assert.match(meshd.stderr, /^Error: /);
      const t = await runProgram('meshctl', TRANSLATE, programEnv(c.env));
      assert.notEqual(t.code, 0);
      assert.equal(t.stderr, meshd.stderr);
      const s = await runProgram('meshctl', ['x', 'simulate', '-f', EX, '-p', 'default/productpage-v1', 'http://ratings:9080/'], programEnv(c.env));
      assert.notEqual(s.code, 0);
      assert.equal(s.stderr, meshd.stderr);
    });
  }
});
