import assert from 'node:assert/strict';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchApiError, OrchClient } from '../controllers/index.js';
import { renderCrds, type CustomResourceDefinition } from '../crds/index.js';
import { ISTIO_CEL_RULES, type CelRuleCase } from '../crds/testing/istio-cel-rules.js';
import { ISTIO_CRD_ONLY_RULES } from '../crds/testing/istio-crd-only-rules.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

const CLIENT_OPTIONS = { qps: 500, burst: 500, contentType: 'json' } as const;
/** Requests in flight at once: the whole table goes to one API server in a few seconds. */
const CONCURRENCY = 8;

/** What the API server answered to one dry-run create: undefined when it accepted the object. */
type Answer = OrchApiError | undefined;

/** One row of a rule table: the kind, its apiVersion and the two specs. */
type Case = Pick<CelRuleCase, 'kind' | 'apiVersion' | 'bad' | 'good'>;

/** The collection path of a rule's kind at the version of its apiVersion. */
function collectionPath(c: Case, crds: readonly CustomResourceDefinition[], namespace: string): string {
  const [group, version] = c.apiVersion.split('/');
  const crd = crds.find((d) => d.spec.group === group && d.spec.names.kind === c.kind);
  if (!crd || !version) throw new Error(`no CRD serves ${c.kind} in ${c.apiVersion}`);
  return `/apis/${group}/${version}/namespaces/${namespace}/${crd.spec.names.plural}`;
}

/** Runs `work` over `items` with at most `limit` at once, keeping the order of the results. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

describe("e2e: Istio's CEL rules in the mesh CRDs, enforced by a real API server", function () {
  this.timeout(300_000);
  const crds = renderCrds();
  let kc: KubeConfig;
  let namespace: string;
  const answers = new Map<Case, { bad: Answer; good: Answer }>();
  const cases: readonly Case[] = [...ISTIO_CEL_RULES, ...ISTIO_CRD_ONLY_RULES];

  before(async () => {
    kc = e2eCluster().kubeConfig();
    const client = new OrchClient(kc, CLIENT_OPTIONS);
    namespace = await createTestNamespace(kc.makeApiClient(CoreV1Api), 'e2e-crds-cel');
    // NOTE: a CRD whose rules exceed the API server's estimated CEL cost budget is refused here.
    await applyCrds(client, crds);
    const send = async (c: Case, spec: unknown, name: string): Promise<Answer> => {
      const body = { apiVersion: c.apiVersion, kind: c.kind, metadata: { name, namespace }, spec };
      try {
        await client.request('POST', collectionPath(c, crds, namespace), { body, query: { dryRun: 'All', fieldValidation: 'Strict' } });
        return undefined;
      } catch (err) {
        if (err instanceof OrchApiError) return err;
        throw err;
      }
    };
    // NOTE: one batch of dry-run creates against the one API server of the run: no object is stored.
    const results = await mapLimited(cases, CONCURRENCY, async (c) => ({
      bad: await send(c, c.bad, 'cel-bad'),
      good: await send(c, c.good, 'cel-good'),
    }));
    cases.forEach((c, i) => answers.set(c, results[i]!));
  });

  after(async () => {
    if (namespace) await deleteNamespaceFully(kc.makeApiClient(CoreV1Api), namespace);
  });

  for (const c of ISTIO_CEL_RULES) {
    describe(`${c.kind} ${c.field}: ${c.message}`, () => {
      it(`given a config that violates it should be refused by the API server with Istio's message`, () => {
        const bad = answers.get(c)!.bad;
        assert.ok(bad, `accepted; want a refusal saying "${c.message}"`);
        assert.equal(bad.status, 422, bad.message);
        assert.ok(bad.message.includes(c.message), `refused, but not with "${c.message}": ${bad.message}`);
      });
      it('given a config at the edge that satisfies it should be accepted by the API server', () => {
        const good = answers.get(c)!.good;
        assert.equal(good, undefined, `refused: ${good?.message ?? ''}`);
      });
    });
  }

  for (const c of ISTIO_CRD_ONLY_RULES) {
    describe(`${c.kind} ${c.field} (${c.keyword} of Istio's schema): ${JSON.stringify(c.bad).slice(0, 100)}`, () => {
      it('given a config that violates it should be refused by the API server', () => {
        const bad = answers.get(c)!.bad;
        assert.ok(bad, `accepted; want a refusal saying "${c.apiServerMessage}"`);
        assert.equal(bad.status, 422, bad.message);
        assert.ok(bad.message.includes(c.apiServerMessage), `refused, but not with "${c.apiServerMessage}": ${bad.message}`);
      });
      it('given a config that satisfies it should be accepted by the API server', () => {
        const good = answers.get(c)!.good;
        assert.equal(good, undefined, `refused: ${good?.message ?? ''}`);
      });
    });
  }
});
