/**
 * What the apply engine needs from an orchestrator client: one JSON request call. `OrchClient` of
 * controllers/ has this shape; install/ does not import controllers/, so the engine names only the call.
 */

/** Options of one request (the subset of `OrchRequestOptions` the engine uses). */
export interface ApplyRequestOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
}

/** A client that sends one request and parses the JSON answer; throws an error with `status` and `reason` on HTTP >= 400. */
export interface ApplyClient {
  request<T>(method: string, path: string, options?: ApplyRequestOptions): Promise<T>;
}

/** The HTTP status of an API error (`OrchApiError` and the like carry `status`), or undefined. */
export function apiStatusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | null | undefined)?.status;
  return typeof s === 'number' ? s : undefined;
}

/** The API server's reason of an error (`NotFound`, `Conflict`, `Invalid`, ...), or ''. */
export function apiReasonOf(err: unknown): string {
  const r = (err as { reason?: unknown } | null | undefined)?.reason;
  return typeof r === 'string' ? r : '';
}

/** A failure of the apply engine naming the object (`Kind namespace/name`) and the API server's reason. */
export class ApplyError extends Error {
  override readonly name = 'ApplyError';
  constructor(
    /** `Kind namespace/name` or `Kind name`. */
    readonly object: string,
    /** The API server's reason (`Conflict`, `Invalid`, `Forbidden`, ...) or '' for a non-API failure. */
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
