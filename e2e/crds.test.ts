import assert from 'node:assert/strict';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { OrchApiError, OrchClient } from '../controllers/index.js';
import { loadCorpus, renderCrds, type CorpusDocument, type CustomResourceDefinition } from '../crds/index.js';
import { applyCrds, createTestNamespace, deleteNamespaceFully, e2eCluster } from './harness/index.js';

const CLIENT_OPTIONS = { qps: 100, burst: 200, contentType: 'json' } as const;

/** The collection path of a corpus document, from its apiVersion and the CRD of its kind. */
function pathOf(doc: CorpusDocument, crds: readonly CustomResourceDefinition[], namespace: string): string {
  const object = doc.object as { apiVersion?: string; kind?: string };
  const [group, version] = (object.apiVersion ?? '').split('/');
  const crd = crds.find((c) => c.spec.group === group && c.spec.names.kind === object.kind);
  if (!crd || !version) throw new Error(`${doc.file}#${doc.index}: no CRD serves kind ${object.kind} in group ${group}`);
  const scope = crd.spec.scope === 'Namespaced' ? `/namespaces/${namespace}` : '';
  return `/apis/${group}/${version}${scope}/${crd.spec.names.plural}`;
}

describe('e2e: mesh CRDs on a real API server', function () {
  this.timeout(300_000);
  const crds = renderCrds();
  const corpus = loadCorpus();
  let kc: KubeConfig;
  let client: OrchClient;
  let namespace: string;

  before(async () => {
    kc = e2eCluster().kubeConfig();
    client = new OrchClient(kc, CLIENT_OPTIONS);
    namespace = await createTestNamespace(kc.makeApiClient(CoreV1Api), 'e2e-crds');
    await applyCrds(client, crds);
  });

  after(async () => {
    if (namespace) await deleteNamespaceFully(kc.makeApiClient(CoreV1Api), namespace);
  });

  it('given the rendered CRDs, should have at least one CRD and one corpus document per kind', () => {
    assert.ok(crds.length > 0, 'renderCrds() returned no CRD');
    for (const crd of crds) {
      const kind = crd.spec.names.kind;
      assert.ok(
        corpus.some((d) => (d.object as { kind?: string }).kind === kind && d.valid),
        `no valid corpus document for ${kind}`,
      );
    }
  });

  for (const doc of corpus) {
    const object = doc.object as { metadata?: Record<string, unknown> };
    const name = `${doc.file}#${doc.index}`;
    // NOTE: documents only the semantic validators reject must pass the schema: the API server accepts them, unless
    // one of Istio's CEL rules or CRD-only schema rules refuses them (then with the message the corpus names).
    const accepted = doc.valid || (doc.semantic && doc.apiServerMessage === undefined);
    const outcome = doc.valid
      ? 'accepted'
      : doc.apiServerMessage !== undefined
        ? `refused with "${doc.apiServerMessage}"`
        : doc.semantic
          ? 'accepted (only the semantic checks refuse it)'
          : 'refused';
    it(`given ${name}, should be ${outcome} by the API server`, async () => {
      const body = { ...object, metadata: { ...object.metadata, namespace } };
      const send = async (): Promise<OrchApiError | undefined> => {
        try {
          await client.request('POST', pathOf(doc, crds, namespace), { body, query: { dryRun: 'All', fieldValidation: 'Strict' } });
          return undefined;
        } catch (err) {
          if (err instanceof OrchApiError) return err;
          throw err;
        }
      };
      let error: OrchApiError | undefined;
      try {
        error = await send();
      } catch (err) {
        // An apiVersion no CRD serves at all is a refusal too.
        if (!accepted && /no CRD serves/.test((err as Error).message)) return;
        throw err;
      }
      if (accepted) {
        assert.equal(error, undefined, `refused: ${error?.message ?? ''}`);
      } else {
        assert.ok(error, `accepted, but the corpus expects an error at ${doc.expectError ?? '?'}`);
        assert.ok([400, 404, 422].includes(error.status), `unexpected refusal: ${error.message}`);
        if (doc.apiServerMessage !== undefined) {
          assert.equal(error.status, 422, error.message);
          assert.ok(error.message.includes(doc.apiServerMessage), `refused, but not with "${doc.apiServerMessage}": ${error.message}`);
        } else if (error.status === 422 && doc.expectError) {
          assert.ok(error.message.includes(doc.expectError), `refused, but not for ${doc.expectError}: ${error.message}`);
        }
      }
    });
  }
});
