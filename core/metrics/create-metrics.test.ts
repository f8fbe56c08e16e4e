import { strict as assert } from 'node:assert';
import { PROGRAMS } from '../program.js';
import { createMetrics, MetricsError } from './create-metrics.js';
import { metricsOf } from './metric-catalogue.js';

describe('createMetrics', () => {
  for (const program of PROGRAMS) {
    it(`given ${program} should expose every metric it exports with HELP and TYPE lines`, async () => {
      const text = await createMetrics(program, { tag: '1.2.3' }).text();
      for (const m of metricsOf(program)) {
        assert.ok(text.includes(`# HELP ${m.name} ${m.help}\n`), `HELP of ${m.name}`);
        assert.ok(text.includes(`# TYPE ${m.name} ${m.type}\n`), `TYPE of ${m.name}`);
      }
      assert.match(text, /^process_cpu_user_seconds_total /m);
    });
  }

  it('given a program should set mesh_build for it to 1', async () => {
    const text = await createMetrics('pilot-discovery', { tag: '1.2.3' }).text();
    assert.match(text, /^mesh_build\{component="pilot-discovery",tag="1.2.3"\} 1$/m);
  });

  it('given meshctl should export no catalogue metric', async () => {
    assert.equal(metricsOf('meshctl').length, 0);
    assert.doesNotMatch(await createMetrics('meshctl').text(), /^mesh_build/m);
  });

  it('given typed handles should record into the registry', async () => {
    const metrics = createMetrics('pilot-discovery', { processMetrics: false });
    metrics.counter('pilot_xds_pushes').inc({ type: 'cds' });
    metrics.counter('pilot_xds_pushes').inc({ type: 'cds' });
    metrics.gauge('pilot_xds').set(3);
    metrics.histogram('pilot_xds_config_size_bytes').observe({ type: 'eds' }, 100);
    const text = await metrics.text();
    assert.match(text, /^pilot_xds_pushes\{type="cds"\} 2$/m);
    assert.match(text, /^pilot_xds 3$/m);
    assert.match(text, /^pilot_xds_config_size_bytes_bucket\{le="256",type="eds"\} 1$/m);
    assert.doesNotMatch(text, /^process_/m);
  });

  it('given two registries should keep them apart', async () => {
    const a = createMetrics('pilot-agent', { processMetrics: false });
    const b = createMetrics('pilot-agent', { processMetrics: false });
    a.counter('dns_requests_total').inc({ request_type: 'A' });
    assert.doesNotMatch(await b.text(), /^dns_requests_total\{/m);
  });

  it('given a wrong kind or a metric the program does not export should throw MetricsError', () => {
    const metrics = createMetrics('pilot-agent', { processMetrics: false });
    // @ts-expect-error pilot_xds is a gauge
    assert.throws(() => metrics.counter('pilot_xds'), (e: unknown) => e instanceof MetricsError && /is a gauge, not a counter/.test(e.message));
    assert.throws(() => metrics.counter('certauth_server_csr_count'), /not exported by pilot-agent/);
  });
});
