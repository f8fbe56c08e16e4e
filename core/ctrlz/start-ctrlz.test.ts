import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, type OutgoingHttpHeaders } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '../env/index.js';
import type { HttpListener } from '../lifecycle/index.js';
import { DEFAULT_LOG_OPTIONS, SCOPES, createLogging, type Logging } from '../log/index.js';
import { createMetrics } from '../metrics/index.js';
import { startCtrlz } from './start-ctrlz.js';

describe('startCtrlz', () => {
  let dir: string;
  let logFile: string;
  let logging: Logging;
  let listener: HttpListener;
  let base: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-ctrlz-'));
    logFile = join(dir, 'log');
    logging = createLogging({ ...DEFAULT_LOG_OPTIONS, targets: [logFile] }, SCOPES['pilot-discovery']);
    const metrics = createMetrics('pilot-discovery', { tag: '1.0.0', processMetrics: false });
    metrics.counter('pilot_xds_pushes').inc({ type: 'lds' });
    const env = loadEnv('pilot-discovery', { PILOT_DEBOUNCE_AFTER: '250ms', TOKEN_AUDIENCES: 'aud-not-to-show' });
    listener = await startCtrlz({ address: '127.0.0.1', port: 0, logging, metrics, program: 'pilot-discovery', env });
    base = `http://127.0.0.1:${listener.address.port}`;
  });
  afterEach(async () => {
    await listener.close();
    logging.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const getJson = async (path: string): Promise<unknown> => {
    const res = await fetch(base + path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('content-type'), 'application/json');
    return res.json();
  };
  const put = (path: string, body: string): Promise<Response> => fetch(base + path, { method: 'PUT', body, headers: { 'content-type': 'application/json' } });

  it('given GET /scopej/ should list every scope with its levels', async () => {
    const scopes = (await getJson('/scopej/')) as { name: string }[];
    assert.equal(scopes.length, SCOPES['pilot-discovery'].length - 1);
    assert.deepEqual(
      scopes.find((s) => s.name === 'ads'),
      { name: 'ads', output_level: 'info', stack_trace_level: 'none', log_callers: false },
    );
  });

  it('given PUT /scopej/ads with debug should change what the ads logger writes', async () => {
    logging.scope('ads').debug('before');
    const res = await put('/scopej/ads', '{"output_level":"debug"}');
    assert.equal(res.status, 202);
    assert.equal(((await res.json()) as { output_level: string }).output_level, 'debug');
    assert.equal(((await getJson('/scopej/ads')) as { output_level: string }).output_level, 'debug');
    logging.scope('ads').debug('after');
    assert.deepEqual(readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')[3]), ['after']);
  });

  it('given a scope with a space should accept its encoded name', async () => {
    const res = await put(`/scopej/${encodeURIComponent('ingress status')}`, '{"stack_trace_level":"error"}');
    assert.equal(res.status, 202);
    assert.equal(logging.levels().find((s) => s.name === 'ingress status')?.stacktraceLevel, 'error');
  });

  it('given PUT /scopej/all should set every scope', async () => {
    assert.equal((await put('/scopej/all', '{"output_level":"warn"}')).status, 202);
    assert.ok(logging.levels().every((s) => s.outputLevel === 'warn'));
  });

  const bad: { name: string; path: string; body: string; status: number; message: RegExp }[] = [
    { name: 'an unknown level', path: '/scopej/ads', body: '{"output_level":"loud"}', status: 400, message: /invalid log level "loud"/ },
    { name: 'a body that is not JSON', path: '/scopej/ads', body: 'debug', status: 400, message: /body is not JSON/ },
    { name: 'a level that is not a string', path: '/scopej/ads', body: '{"output_level":3}', status: 400, message: /output_level must be a string/ },
    { name: 'an unknown scope', path: '/scopej/nosuch', body: '{"output_level":"debug"}', status: 404, message: /unknown scope "nosuch"/ },
  ];
  for (const c of bad) {
    it(`given ${c.name} should answer ${c.status} with a message and change nothing`, async () => {
      const res = await put(c.path, c.body);
      assert.equal(res.status, c.status);
      assert.match(await res.text(), c.message);
      assert.ok(logging.levels().every((s) => s.outputLevel === 'info'));
    });
  }

  /** A request with exactly these headers (fetch cannot set Host); resolves to status and body. */
  const raw = (method: string, path: string, headers: OutgoingHttpHeaders, body?: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: listener.address.port, method, path, headers, setHost: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const json = { 'content-type': 'application/json' };
  const port = (): number => listener.address.port;
  const guarded: { name: string; method: string; path: string; headers: () => OutgoingHttpHeaders; body?: string; status: number; message: RegExp }[] = [
    { name: 'a PUT naming another host (DNS rebinding)', method: 'PUT', path: '/scopej/all', headers: () => ({ host: `rebind.attacker.example:${port()}`, origin: `http://rebind.attacker.example:${port()}`, ...json }), body: '{"output_level":"none"}', status: 403, message: /Host "rebind\.attacker\.example:\d+" is not a name of this server/ },
    { name: 'a GET naming another host (DNS rebinding reading the environment)', method: 'GET', path: '/envj/', headers: () => ({ host: 'rebind.attacker.example' }), status: 403, message: /is not a name of this server/ },
    { name: 'a PUT from a page of another origin', method: 'PUT', path: '/scopej/all', headers: () => ({ host: `localhost:${port()}`, origin: 'http://attacker.example', ...json }), body: '{"output_level":"none"}', status: 403, message: /cross-origin PUT refused: Origin "http:\/\/attacker\.example" is not this server/ },
    { name: 'a PUT from an opaque origin', method: 'PUT', path: '/scopej/all', headers: () => ({ host: `127.0.0.1:${port()}`, origin: 'null', ...json }), body: '{"output_level":"none"}', status: 403, message: /cross-origin PUT refused/ },
    { name: 'a PUT marked cross-site by the browser', method: 'PUT', path: '/scopej/ads', headers: () => ({ host: `127.0.0.1:${port()}`, 'sec-fetch-site': 'cross-site', ...json }), body: '{"output_level":"none"}', status: 403, message: /cross-site PUT refused \(Sec-Fetch-Site: cross-site\)/ },
    { name: 'a PUT with a form content type', method: 'PUT', path: '/scopej/all', headers: () => ({ host: `127.0.0.1:${port()}`, 'content-type': 'text/plain' }), body: '{"output_level":"none"}', status: 415, message: /PUT needs a JSON body with content-type: application\/json \(got "text\/plain"\)/ },
    { name: 'a PUT without a content type', method: 'PUT', path: '/scopej/all', headers: () => ({ host: `127.0.0.1:${port()}` }), body: '{"output_level":"none"}', status: 415, message: /content-type: application\/json/ },
    { name: 'a malformed Host', method: 'GET', path: '/versionj/', headers: () => ({ host: 'a b' }), status: 400, message: /malformed Host header/ },
  ];
  for (const c of guarded) {
    it(`given ${c.name} should answer ${c.status} and change nothing`, async () => {
      const res = await raw(c.method, c.path, c.headers(), c.body);
      assert.equal(res.status, c.status, res.text);
      assert.match(res.text, c.message);
      assert.ok(logging.levels().every((s) => s.outputLevel === 'info'));
    });
  }

  const allowed: { name: string; headers: () => OutgoingHttpHeaders }[] = [
    { name: 'a curl-style PUT to the IP address', headers: () => ({ host: `127.0.0.1:${port()}`, ...json }) },
    { name: 'a PUT through a port-forward on localhost', headers: () => ({ host: `localhost:${port() + 1}`, ...json }) },
    { name: 'a PUT from the introspection page itself', headers: () => ({ host: `localhost:${port()}`, origin: `http://localhost:${port()}`, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json; charset=utf-8' }) },
    { name: 'a PUT naming the machine\'s host name', headers: () => ({ host: `${hostname()}:${port()}`, ...json }) },
  ];
  for (const c of allowed) {
    it(`given ${c.name} should set the level`, async () => {
      const res = await raw('PUT', '/scopej/ads', c.headers(), '{"output_level":"debug"}');
      assert.equal(res.status, 202, res.text);
      assert.equal(logging.levels().find((s) => s.name === 'ads')?.outputLevel, 'debug');
    });
  }

  const badTargets = [
    // NOTE: both answered 500 with only "Invalid URL" / "URI malformed", naming neither the part nor the text.
    { target: '//', want: 'the request target "//" is not a URL path\n' },
    { target: '/scopej/%ZZ', want: 'the scope name "%ZZ" in /scopej/ is not valid percent-encoding (want % and two hex digits, forming UTF-8)\n' },
  ];
  for (const c of badTargets) {
    it(`given GET ${c.target} should answer 400 naming what is wrong`, async () => {
      assert.deepEqual(await raw('GET', c.target, { host: `127.0.0.1:${port()}` }), { status: 400, text: c.want });
    });
  }

  it('given GET of an unknown scope should answer 404', async () => {
    const res = await fetch(`${base}/scopej/nosuch`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });

  it('given the topic endpoints should answer with process, memory, env, metrics and version', async () => {
    assert.equal(((await getJson('/procj/')) as { pid: number }).pid, process.pid);
    assert.ok(((await getJson('/memj/')) as { heapUsed: number }).heapUsed > 0);
    const env = (await getJson('/envj/')) as { name: string; type: string; value: unknown; set: boolean }[];
    const debounce = env.find((e) => e.name === 'PILOT_DEBOUNCE_AFTER');
    assert.deepEqual([debounce?.type, debounce?.value, debounce?.set], ['Duration', 250, true]);
    assert.deepEqual(env.find((e) => e.name === 'CLUSTER_ID')?.value, 'Orchestrator');
    const metrics = (await getJson('/metricj/')) as { name: string; values: { value: number; labels: object }[] }[];
    assert.deepEqual(metrics.find((m) => m.name === 'pilot_xds_pushes')?.values, [{ value: 1, labels: { type: 'lds' } }]);
    assert.match(((await getJson('/versionj/')) as { nodeVersion: string }).nodeVersion, /^v\d+/);
  });

  it('given GET / should serve the HTML page with scope selectors', async () => {
    const res = await fetch(`${base}/`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    assert.match(html, /<select data-scope="ads" data-field="output_level">/);
    assert.match(html, /pilot_xds_pushes/);
    assert.match(html, /PILOT_DEBOUNCE_AFTER/);
  });

  const topics = [
    { topic: 'scope', html: /<select data-scope="ads" data-field="stack_trace_level">/, json: (v: unknown) => (v as { name: string }[]).some((s) => s.name === 'ads') },
    { topic: 'mem', html: /heapUsed/, json: (v: unknown) => (v as { heapUsed: number }).heapUsed > 0 },
    { topic: 'proc', html: new RegExp(`<td>pid</td><td>${process.pid}</td>`), json: (v: unknown) => (v as { pid: number }).pid === process.pid },
    { topic: 'env', html: /PILOT_DEBOUNCE_AFTER/, json: (v: unknown) => (v as { name: string }[]).some((e) => e.name === 'PILOT_DEBOUNCE_AFTER') },
    { topic: 'arg', html: /Command-line arguments/, json: (v: unknown) => JSON.stringify(v) === JSON.stringify(process.argv.slice(1)) },
    { topic: 'version', html: /nodeVersion/, json: (v: unknown) => /^v\d+/.test((v as { nodeVersion: string }).nodeVersion) },
    { topic: 'metric', html: /pilot_xds_pushes/, json: (v: unknown) => (v as { name: string }[]).some((m) => m.name === 'pilot_xds_pushes') },
  ];
  for (const t of topics) {
    it(`given GET /${t.topic}z/ and /${t.topic}z should serve the ${t.topic} topic page, and /${t.topic}j/ and /${t.topic}j its JSON`, async () => {
      for (const path of [`/${t.topic}z/`, `/${t.topic}z`]) {
        const res = await fetch(base + path);
        assert.equal(res.status, 200, path);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        const html = await res.text();
        assert.match(html, t.html, path);
        assert.match(html, /<a href="\/memz\/">Memory<\/a>/, 'every page links the topics');
      }
      for (const path of [`/${t.topic}j/`, `/${t.topic}j`]) assert.ok(t.json(await getJson(path)), path);
    });
  }

  it('given a variable named like a token or key should show neither its value in /envj/ nor in the pages', async () => {
    const env = (await getJson('/envj/')) as { name: string; value: unknown; set: boolean }[];
    assert.deepEqual(env.find((e) => e.name === 'TOKEN_AUDIENCES'), { ...env.find((e) => e.name === 'TOKEN_AUDIENCES'), value: '<redacted>', set: true });
    for (const path of ['/envz/', '/', '/envj/']) assert.ok(!(await (await fetch(base + path)).text()).includes('aud-not-to-show'), path);
    assert.equal(env.find((e) => e.name === 'CLUSTER_ID')?.value, 'Orchestrator', 'other values are shown');
  });

  it('given an unknown topic should answer 404 naming the topics', async () => {
    const res = await fetch(`${base}/nosuchz/`);
    assert.equal(res.status, 404);
    assert.match(await res.text(), /no page at \/nosuchz\/ \(topics: \/scopez\/, \/memz\//);
  });

  it('given address * should listen on every address', async () => {
    const metrics = createMetrics('operator', { processMetrics: false });
    const all = await startCtrlz({ address: '*', port: 0, logging, metrics, program: 'operator', env: loadEnv('operator', {}) });
    try {
      assert.equal(all.address.host, '');
      const res = await fetch(`http://127.0.0.1:${all.address.port}/versionj/`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    } finally {
      await all.close();
    }
  });
});
