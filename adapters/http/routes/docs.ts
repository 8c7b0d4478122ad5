import { Hono } from "hono"
import type { RouterRoute } from "hono/types"
import type { AppEnv } from "../app-env.ts"
import { operationCatalog } from "../openapi/catalog.ts"
import { buildOpenApiDocument, routeKey } from "../openapi/document.ts"
import { referenceHtml, referenceScript } from "../openapi/reference-page.ts"

/** Handler routes the app serves ("METHOD /path"), without middleware entries. */
export const servedRoutes = (routes: readonly RouterRoute[]): Set<string> =>
  new Set(routes.filter((r) => r.method !== "ALL").map((r) => routeKey(r.method, r.path)))

/**
 * GET /openapi.json and GET /docs, unauthenticated: integrators read them before they hold a
 * token. The document lists exactly the operations this app serves, built once on first use
 * (the route table is fixed after makeApp).
 */
export const docsRoutes = (publicUrl: string, routes: () => readonly RouterRoute[]) => {
  let cached: string | undefined
  const document = () =>
    (cached ??= JSON.stringify(
      buildOpenApiDocument(operationCatalog, {
        serverUrl: publicUrl,
        served: servedRoutes(routes()),
      }),
    ))
  return (
    new Hono<AppEnv>()
      .get("/openapi.json", (c) =>
        c.body(document(), 200, { "Content-Type": "application/json; charset=utf-8" }),
      )
      // The CSP proves the page needs nothing outside this server (closed networks).
      .get("/docs", (c) =>
        c.html(referenceHtml("Keyspace API reference"), 200, {
          "Content-Security-Policy":
            "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:",
        }),
      )
      .get("/docs/reference.js", (c) =>
        c.body(referenceScript, 200, {
          "Content-Type": "text/javascript; charset=utf-8",
          "Cache-Control": "no-cache",
        }),
      )
  )
}
