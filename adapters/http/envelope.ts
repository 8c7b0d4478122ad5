import type { Context } from "hono"
import type { ContentfulStatusCode } from "hono/utils/http-status"
import { recentMap } from "../../core/shared/recent-map.ts"

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

/** The success envelope around data already written as JSON text: the bytes `ok()` sends for it. */
export const envelopeJson = (dataJson: string, meta?: PageMeta): string =>
  `{"code":"${SUCCESS_CODE}","success":true,"message":"OK","data":${dataJson}${meta ? `,"meta":${JSON.stringify(meta)}` : ""}}`

/** A whole success envelope already encoded (a `RepeatedAnswers` hit). */
export const okJsonBytes = (c: Context, bytes: Uint8Array): Response =>
  c.body(bytes as Uint8Array<ArrayBuffer>, 200, { "Content-Type": "application/json" })

/**
 * The last answers of repeated listings: when a listing (same key) shows the very same values
 * (`same`, compared element by element, so always exact), its encoded envelope is sent again
 * instead of assembled and encoded (a booking screen's poll, the bench's repeated reads).
 */
export interface RepeatedAnswers<T> {
  readonly bytes: (key: string, value: T, json: (value: T) => string, meta?: PageMeta) => Uint8Array
}

const encoder = new TextEncoder()
const sameMeta = (a: PageMeta | undefined, b: PageMeta | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.limit === b.limit && a.offset === b.offset && a.total === b.total)

export const repeatedAnswers = <T>(same: (a: T, b: T) => boolean, max = 16): RepeatedAnswers<T> => {
  const last = recentMap<string, { readonly value: T; readonly meta: PageMeta | undefined; readonly bytes: Uint8Array }>(max)
  return {
    bytes: (key, value, json, meta) => {
      const held = last.peek(key)
      if (held !== undefined && sameMeta(held.meta, meta) && same(held.value, value)) return held.bytes
      const bytes = encoder.encode(envelopeJson(json(value), meta))
      last.set(key, { value, meta, bytes })
      return bytes
    },
  }
}

/** Two arrays of the same length whose elements are pairwise `same`. */
export const sameEach =
  <T>(same: (a: T, b: T) => boolean) =>
  (a: ReadonlyArray<T>, b: ReadonlyArray<T>): boolean => {
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!same(a[i]!, b[i]!)) return false
    return true
  }
