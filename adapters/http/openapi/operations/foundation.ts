import { Schema } from "effect"
import { Manifest } from "../../../../core/tenancy/manifest.ts"
import { AppIdParam, ClockAdvanceRequest, RotateSecretRequest } from "../../schemas/operator-requests.ts"
import { ActAsGrant, AppCredentialsGrant, RefreshTokenGrant } from "../../schemas/token-request.ts"
import { defineGroup } from "../operation.ts"
import { AppSecret, ClockNow, ClockState, Health, ManifestIds, TokenResponse } from "../resource-schemas.ts"

/** Token endpoint, health and the service's own documentation and metrics routes. */

const TokenRequest = Schema.Union([
  AppCredentialsGrant.annotate({ identifier: "AppCredentialsGrant" }),
  RefreshTokenGrant.annotate({ identifier: "RefreshTokenGrant" }),
  ActAsGrant.annotate({ identifier: "ActAsGrant" }),
])

export const authGroup = defineGroup({
  tag: "Authentication",
  description: "OAuth 2.0 client credentials, refresh and the delegated act_as grant.",
  operations: [
    {
      method: "post",
      path: "/auth/accessToken",
      operationId: "createAccessToken",
      tag: "Authentication",
      summary: "Issue an access token",
      description:
        "One of three grant shapes selected by grant_type. The response is NOT wrapped in the envelope " +
        "and has no token_type. act_as tokens have no refresh_token: re-run act_as on expiry.",
      security: "none",
      body: {
        schema: TokenRequest,
        required: true,
        examples: {
          app_credentials: {
            summary: "App credentials",
            value: {
              grant_type: "app_credentials",
              app_id: "demo-app",
              app_secret: "<app_secret>",
            },
          },
          refresh_token: {
            summary: "Refresh",
            value: { grant_type: "refresh_token", refresh_token: "<refresh_token>" },
          },
          act_as: {
            summary: "Act as a member",
            value: {
              grant_type: "act_as",
              app_id: "demo-app",
              app_secret: "<app_secret>",
              subject: "ext-alice",
            },
          },
        },
      },
      responses: [
        {
          status: 201,
          description: "TokenResponse (no envelope).",
          raw: TokenResponse,
          examples: {
            pair: {
              summary: "app_credentials",
              value: {
                access_token: "<token>",
                expires_in: 3600,
                refresh_token: "<token>",
                refresh_token_expires_in: 2592000,
              },
            },
          },
        },
      ],
      errors: ["Unauthenticated", "SubjectUnresolved", "SubjectNotAuthorized", "AuthUnavailable"],
    },
  ],
})

export const serviceGroup = defineGroup({
  tag: "Service",
  description: "Health, metrics and this documentation. No authentication.",
  operations: [
    {
      method: "get",
      path: "/healthz",
      operationId: "getHealth",
      tag: "Service",
      summary: "Health check",
      description:
        "200 once migrations have run and the server takes requests. Not wrapped in the envelope.",
      security: "none",
      responses: [
        {
          status: 200,
          description: "Healthy.",
          raw: Health,
          examples: { ok: { summary: "ok", value: { status: "ok" } } },
        },
      ],
    },
    {
      method: "get",
      path: "/metrics",
      operationId: "getMetrics",
      tag: "Service",
      summary: "Prometheus metrics",
      description:
        "Prometheus text format 0.0.4: requests by route and status, latency, booking status changes, scheduler lag, webhook deliveries, partner rate-limit hits.",
      security: "none",
      responses: [{ status: 200, description: "Metrics.", contentType: "text/plain" }],
    },
    {
      method: "get",
      path: "/openapi.json",
      operationId: "getOpenApiDocument",
      tag: "Service",
      summary: "This OpenAPI 3.1 document",
      description:
        "This document, served by the running server: `servers` is its KEYSPACE_PUBLIC_URL.",
      security: "none",
      responses: [
        {
          status: 200,
          description: "The document (an OpenAPI 3.1 object).",
          raw: Schema.Record(Schema.String, Schema.Unknown),
        },
      ],
    },
    {
      method: "get",
      path: "/docs",
      operationId: "getApiReference",
      tag: "Service",
      summary: "API reference page",
      description: "HTML rendered from /openapi.json; no external resources.",
      security: "none",
      responses: [{ status: 200, description: "HTML page.", contentType: "text/html" }],
    },
    {
      method: "get",
      path: "/docs/reference.js",
      operationId: "getApiReferenceScript",
      tag: "Service",
      summary: "Script of the API reference page",
      description:
        "The script the reference page at /docs loads (served locally: the page needs no network).",
      security: "none",
      responses: [{ status: 200, description: "JavaScript.", contentType: "text/javascript" }],
    },
  ],
})

export const operatorGroup = defineGroup({
  tag: "Operator",
  description: "Provisioning and test control (operator contract); KEYSPACE_ADMIN_TOKEN required.",
  operations: [
    {
      method: "put",
      path: "/admin/v1/manifest",
      operationId: "applyManifest",
      tag: "Operator",
      summary: "Apply a tenant manifest",
      description:
        "Declarative and idempotent: applying the same manifest twice changes nothing and returns the same ids.",
      security: "operator",
      body: {
        schema: Manifest.annotate({ identifier: "Manifest" }),
        required: true,
        examples: {
          minimal: {
            summary: "One project and one app",
            value: {
              projects: [{ key: "hq", name: "HQ Tower", timezone: "Asia/Bangkok" }],
              apps: [
                {
                  key: "partner",
                  appId: "partner-app",
                  appSecret: "partner-secret-123",
                  projects: ["hq"],
                },
              ],
            },
          },
        },
      },
      responses: [{ status: 200, description: "Key-to-ObjectId map.", data: ManifestIds }],
      // A user's phone or employee id already held by a user outside the manifest.
      errors: ["StateConflict"],
    },
    {
      method: "get",
      path: "/admin/v1/manifest/ids",
      operationId: "getManifestIds",
      tag: "Operator",
      summary: "Read the key-to-id map",
      description:
        "The ids of everything provisioned (the demo project's among them), in the shape PUT /admin/v1/manifest answers, " +
        "read back from the database.",
      security: "operator",
      responses: [{ status: 200, description: "Key-to-ObjectId map.", data: ManifestIds }],
    },
    {
      method: "post",
      path: "/admin/v1/apps/:appId/secret",
      operationId: "rotateAppSecret",
      tag: "Operator",
      summary: "Rotate an app's secret",
      description:
        "appId is the app_id of the token grant (e.g. demo-app). Without a body a new secret is generated; " +
        "the answer shows it once. The old secret stops working at once; tokens already issued stay valid until they expire.",
      security: "operator",
      pathParams: AppIdParam,
      body: {
        schema: RotateSecretRequest,
        required: false,
        examples: { generated: { summary: "Generate a new secret", value: {} } },
      },
      responses: [{ status: 200, description: "The app_id and its new secret.", data: AppSecret }],
      errors: ["NotFound"],
    },
    {
      method: "get",
      path: "/admin/v1/clock",
      operationId: "getClock",
      tag: "Operator",
      summary: "Read the service clock",
      description:
        "The service clock every rule and timer runs on: `system`, or `manual` (KEYSPACE_CLOCK=manual), " +
        "which only POST /admin/v1/clock/advance moves.",
      security: "operator",
      responses: [{ status: 200, description: "Clock.", data: ClockState }],
    },
    {
      method: "post",
      path: "/admin/v1/clock/advance",
      operationId: "advanceClock",
      tag: "Operator",
      summary: "Advance the manual clock",
      description: "Answers after every scheduler tick due up to the new time has been applied.",
      security: "operator",
      body: {
        schema: ClockAdvanceRequest,
        required: true,
        examples: { minutes: { summary: "By minutes", value: { minutes: 15 } } },
      },
      responses: [{ status: 200, description: "New time.", data: ClockNow }],
      errors: ["StateConflict"],
    },
  ],
})
