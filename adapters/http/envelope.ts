import type { Context } from "hono"
import type { ContentfulStatusCode } from "hono/utils/http-status"

/** The spec's response envelope: every JSON response except the token endpoint. */
export interface Envelope<T> {
  readonly code: string
  readonly success: boolean
  readonly message: string | readonly string[]
  readonly data?: T
  readonly meta?: PageMeta
}

export interface PageMeta {
  readonly limit: number
  readonly offset: number
  readonly total: number
}

export const SUCCESS_CODE = "SV000"

export const ok = <T>(
  c: Context,
  data: T,
  options: { status?: ContentfulStatusCode; message?: string; meta?: PageMeta } = {},
) =>
  c.json(
    {
      code: SUCCESS_CODE,
      success: true,
      message: options.message ?? "OK",
      data,
      ...(options.meta ? { meta: options.meta } : {}),
    } satisfies Envelope<T>,
    options.status ?? 200,
  )

export const failureBody = (
  code: string,
  message: string | readonly string[],
  data?: unknown,
): Envelope<unknown> => ({ code, success: false, message, ...(data === undefined ? {} : { data }) })
