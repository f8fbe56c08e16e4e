import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../clock/index.js';
import { DEFAULT_LOG_OPTIONS, createLogging, type Logging, type LogOptions } from './create-logging.js';
import { LogConfigError } from './log-levels.js';
import { SCOPES } from './scopes.js';

const T0 = Date.UTC(2026, 10, 22) + 0.001; // 2026-11-22T00:00:00.000001Z

describe('createLogging', () => {
  let dir: string;
  let file: string;
  let logging: Logging | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mesh-log-'));
    file = join(dir, 'out.log');
  });
  afterEach(() => {
    logging?.close();
    logging = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  const make = (opts: Partial<LogOptions> = {}): Logging =>
    (logging = createLogging({ ...DEFAULT_LOG_OPTIONS, targets: [file], ...opts }, SCOPES['pilot-discovery'], { clock: new ManualClock(T0) }));
  const lines = (path = file): string[] => readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');

  it('given console format should write Istio-style tab-separated lines, scope omitted for default', () => {
    const l = make();
    l.scope('ads').info({ node: 'sidecar~1', resources: 3 }, 'push done');
    l.root.warn('plain message');
    l.scope('ads').info({ text: 'two words' }, 'quoted');
    l.scope('ads').error({ err: new Error('no route') }, 'push failed');
    assert.deepEqual(lines(), [
      '2026-11-22T00:00:00.000001Z\tinfo\tads\tpush done\tnode=sidecar~1 resources=3',
      '2026-11-22T00:00:00.000001Z\twarn\tplain message',
      '2026-11-22T00:00:00.000001Z\tinfo\tads\tquoted\ttext="two words"',
      '2026-11-22T00:00:00.000001Z\terror\tads\tpush failed\terr="no route"',
    ]);
  });

  it('given asJson should write JSON records with time, level, scope, msg and fields', () => {
    make({ asJson: true }).scope('model').error({ key: 'v' }, 'failed');
    const records = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(records, [{ time: '2026-11-22T00:00:00.000001Z', level: 'error', scope: 'model', msg: 'failed', key: 'v' }]);
  });

  it('given per-scope levels should filter each scope by its own level', () => {
    const l = make({ outputLevels: 'default:warn,ads:debug,model:none' });
    l.root.info('hidden');
    l.root.warn('shown default');
    l.scope('ads').debug('shown ads');
    l.scope('model').fatal('hidden');
    l.scope('ca').debug('hidden');
    l.scope('ca').info('shown ca');
    assert.deepEqual(lines().map((x) => x.split('\t').slice(1).join(' ')), ['warn shown default', 'debug ads shown ads', 'info ca shown ca']);
  });

  it('given a dynamic level change should apply it to the scope logger and its children, and reset', () => {
    const l = make();
    const child = l.scope('ads').child({ conn: 'c1' });
    child.debug('before');
    l.setLevel('ads', 'debug');
    child.debug('after');
    l.scope('ads').debug('after too');
    l.scope('model').debug('other scope');
    const grandchild = child.child({ stream: 2 });
    grandchild.debug('new grandchild');
    l.reset();
    child.debug('after reset');
    grandchild.debug('grandchild after reset');
    assert.deepEqual(lines().map((x) => x.split('\t')[3]), ['after', 'after too', 'new grandchild']);
    assert.equal(l.levels().find((s) => s.name === 'ads')?.outputLevel, 'info');
  });

  it('given setLevel all should change every scope', () => {
    const l = make();
    l.setLevel('all', 'error');
    assert.ok(l.levels().every((s) => s.outputLevel === 'error'));
  });

  const badChanges: { name: string; run: (l: Logging) => void; message: RegExp }[] = [
    { name: 'an unknown scope', run: (l) => l.setLevel('nosuch', 'debug'), message: /unknown scope "nosuch".*valid scopes: ads,/ },
    { name: 'an unknown level', run: (l) => l.setStacktraceLevel('ads', 'loud'), message: /invalid log level "loud"/ },
    { name: 'a scope lookup', run: (l) => l.scope('nosuch'), message: /unknown log scope "nosuch"/ },
  ];
  for (const c of badChanges) {
    it(`given ${c.name} should throw LogConfigError`, () => {
      const l = make();
      assert.throws(() => c.run(l), (err: unknown) => err instanceof LogConfigError && c.message.test(err.message));
    });
  }

  it('given an unknown scope in the options should throw before opening anything', () => {
    assert.throws(() => make({ outputLevels: 'nosuch:info' }), LogConfigError);
    assert.throws(() => make({ callerScopes: 'nosuch' }), LogConfigError);
  });

  it('given --log_caller for a scope should add caller file:line to its records only', () => {
    const l = make({ asJson: true, callerScopes: 'ads' });
    l.scope('ads').info('with caller');
    l.scope('model').info('without');
    const [withCaller, without] = lines().map((x) => JSON.parse(x) as Record<string, unknown>);
    assert.match(String(withCaller!['caller']), /^log\/create-logging\.test\.js:\d+$/);
    assert.equal(without!['caller'], undefined);
  });

  it('given a stacktrace level should add stack at or above it', () => {
    const l = make({ asJson: true, stacktraceLevels: 'default:none,ads:error' });
    l.scope('ads').warn('no stack');
    l.scope('ads').error('stack');
    const [warn, error] = lines().map((x) => JSON.parse(x) as Record<string, unknown>);
    assert.equal(warn!['stack'], undefined);
    assert.match(String(error!['stack']), /create-logging\.test\.js/);
  });

  it('given several file targets should write every line to each', () => {
    const second = join(dir, 'sub', 'second.log');
    make({ targets: [file, second] }).root.info('both');
    assert.equal(lines().length, 1);
    assert.deepEqual(lines(second), lines());
  });

  it('given a target that cannot be opened should throw naming it', () => {
    assert.throws(() => make({ targets: [dir] }), (err: unknown) => err instanceof LogConfigError && err.message.includes(dir));
  });

  it('given close should drop later records', () => {
    const l = make();
    l.close();
    l.root.info('dropped');
    assert.deepEqual(lines(), []);
  });
});
