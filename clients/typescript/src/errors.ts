/** A non-2xx answer (or a network failure) after the client's retry rules ran out. */
export class KeyspaceError extends Error {
  override readonly name = "KeyspaceError"
  constructor(
    /** HTTP status; 0 for a network failure. */
    readonly status: number,
    /** The envelope's code (SV001, SV012, ...); "NETWORK" for a network failure. */
    readonly code: string,
    /** One string, or one per violated constraint for SV001. */
    readonly messages: readonly string[],
    /** The envelope's data: conflictKey, status, limit, retryAfterSeconds... */
    readonly data: unknown,
    /** X-Request-Id of the failed response, for support. */
    readonly requestId: string | undefined,
    /** How many attempts were made. */
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(`${status || "network"} ${code}: ${messages.join("; ")}`, options)
  }

  /** Network failures, 5xx and 429: the spec's retryable class. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500
  }
}
