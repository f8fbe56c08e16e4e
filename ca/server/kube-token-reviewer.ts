// TokenReviewer against the Kubernetes API server (authentication.k8s.io/v1 TokenReview).
import { AuthenticationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { TokenReviewResult, TokenReviewer } from './token-authenticator.js';

/**
 * Creates a TokenReview per call through `@kubernetes/client-node`. Needs RBAC `create` on
 * `tokenreviews` (the ClusterRole `system:auth-delegator`). Callers cache results (TokenAuthenticator does).
 * NOTE: exercised against a real API server by the Kubernetes issue's e2e tests, not by unit tests.
 */
export class KubeTokenReviewer implements TokenReviewer {
  readonly #api: AuthenticationV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.#api = kubeConfig.makeApiClient(AuthenticationV1Api);
  }

  async review(token: string, audiences: readonly string[] | undefined): Promise<TokenReviewResult> {
    const review = await this.#api.createTokenReview({
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token, ...(audiences ? { audiences: [...audiences] } : {}) },
      },
    });
    const statusPart = review.status;
    return {
      authenticated: statusPart?.authenticated === true,
      error: statusPart?.error,
      username: statusPart?.user?.username,
      audiences: statusPart?.audiences,
      extra: statusPart?.user?.extra,
    };
  }
}
