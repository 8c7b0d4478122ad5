import { describe, expect, it } from "vitest"
import { toErrorResponse } from "../../../adapters/http/error-table.ts"
import { AuthUnavailable, RateLimited, UpstreamUnavailable } from "../../../core/shared/errors.ts"

describe("retryable refusals say when to retry (Retry-After)", () => {
  it.each([
    ["503 SV004, upstream unavailable", new UpstreamUnavailable({ reason: "the database connection was lost; retry the request" }), 503, "SV004", "1"],
    ["503 SV234, authentication unavailable", new AuthUnavailable({ reason: "authentication is unavailable" }), 503, "SV234", "1"],
    ["429 SV036, rate limited, in whole seconds", new RateLimited({ retryAfterSeconds: 2.2 }), 429, "SV036", "3"],
  ])("%s", (_name, error, status, code, retryAfter) => {
    const answer = toErrorResponse(error)
    expect([answer.status, answer.body.code, answer.headers["Retry-After"]]).toEqual([status, code, retryAfter])
  })
})
