// TokenReviewer against the Kubernetes API server (authentication.k8s.io/v1 TokenReview).
import type { V1TokenReview } from '@kubernetes/client-node';
import type { TokenReviewResult, TokenReviewer } from './token-authenticator.js';

/** The one call the reviewer makes (the orchestrator client has it). */
export interface TokenReviewTransport {
  request<T>(method: string, path: string, options?: { readonly body?: unknown }): Promise<T>;
}

/**
 * Creates a TokenReview per call through the orchestrator client. Needs RBAC `create` on
 * `tokenreviews` (the ClusterRole `system:auth-delegator`). Callers cache results (TokenAuthenticator does).
 * NOTE: exercised against a real API server by the Kubernetes issue's e2e tests, not by unit tests.
 */
export class KubeTokenReviewer implements TokenReviewer {
  constructor(private readonly api: TokenReviewTransport) {}

  async review(token: string, audiences: readonly string[] | undefined): Promise<TokenReviewResult> {
    const review = await this.api.request<V1TokenReview>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
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
