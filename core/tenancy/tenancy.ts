import { Context, Effect, Layer, Option } from "effect"
import { BookingLifecycle } from "../booking/lifecycle.ts"
import { Clock } from "../ports/clock.ts"
import { LifecycleSignals } from "../ports/lifecycle-signals.ts"
import { ManifestStore } from "../ports/manifest-store.ts"
import { Secrets } from "../ports/secrets.ts"
import { TokenStore } from "../ports/token-store.ts"
import { UnitOfWork } from "../ports/unit-of-work.ts"
import { NotFound, ValidationFailed } from "../shared/errors.ts"
import { demoManifest, type DemoSeed } from "./demo-manifest.ts"
import { type Manifest, manifestIdentityErrors, manifestReferenceErrors, withStoredPhones } from "./manifest.ts"

/** The operator's provisioning: the manifest, app secrets, and the demo seed. */
export class Tenancy extends Context.Service<Tenancy>()("keyspace/core/Tenancy", {
  make: Effect.gen(function* () {
    const uow = yield* UnitOfWork
    const store = yield* ManifestStore
    const tokens = yield* TokenStore
    const secrets = yield* Secrets
    const clock = yield* Clock
    const lifecycle = yield* BookingLifecycle
    const signals = yield* LifecycleSignals

    /**
     * PUT /admin/v1/manifest: applies a decoded manifest in one transaction. `extraErrors` are
     * the edge's own checks (webhook URL policy), reported with the reference errors in one 400.
     */
    const applyManifest = Effect.fn("Tenancy.applyManifest")(function* (
      manifest: Manifest,
      extraErrors: ReadonlyArray<string> = [],
    ) {
      const stored = withStoredPhones(manifest)
      const messages = [...manifestReferenceErrors(stored), ...manifestIdentityErrors(stored), ...extraErrors]
      if (messages.length > 0) return yield* new ValidationFailed({ messages })
      // Every process's caches follow this commit without a call here (cache_epoch triggers).
      // A phone or employee id held by a user outside the manifest fails it (StateConflict).
      // A room or desk whose meetingConfig changed has its live bookings' ticks planned again in
      // the same transaction: ticks planned by the old timings would be skipped by the new ones.
      const applied = yield* uow.transaction(
        Effect.gen(function* () {
          const applied = yield* store.apply(stored)
          const replanned = yield* lifecycle.replanAssets(applied.retimedAssets, clock.now())
          return { ids: applied.ids, replanned }
        }),
      )
      for (const bookingId of applied.replanned) yield* signals.bookingCommitted(bookingId, "update")
      return applied.ids
    })

    /** GET /admin/v1/manifest/ids. */
    const manifestIds = Effect.fn("Tenancy.manifestIds")(function* () {
      return yield* store.ids()
    })

    /**
     * Rotates an app's secret (POST /admin/v1/apps/{appId}/secret): the new secret is returned
     * once and only its hash is kept. The old secret stops working at once on every process
     * (cache_epoch), and so do the app's refresh tokens: each refresh mints a new one, so a
     * leaked refresh token would otherwise outlive the secret for ever. Access tokens already
     * issued run out at their expiry (KEYSPACE_ACCESS_TOKEN_TTL), so running clients are not cut
     * off mid-request.
     */
    const rotateAppSecret = Effect.fn("Tenancy.rotateAppSecret")(function* (appId: string, chosen?: string) {
      const appSecret = chosen ?? secrets.opaqueToken()
      // Hashed before writing: the hash is deliberately slow and holds no lock.
      const secretHash = yield* secrets.hash(appSecret)
      const updated = yield* uow.transaction(tokens.setSecretHash(appId, secretHash, clock.now()))
      if (!updated) return yield* new NotFound({ entity: "app", id: appId })
      return { appId, appSecret }
    })

    /** Seeds the demo project on an empty database; the credentials to print when it did. */
    const seedDemo = Effect.fn("Tenancy.seedDemo")(function* () {
      const appSecret = secrets.opaqueToken()
      // Checked and seeded under the manifest's lock: processes starting together on one new
      // database seed it once (the others find it seeded), never a duplicate key.
      const outcome = yield* uow
        .transaction(
          Effect.gen(function* () {
            yield* store.serialize()
            const census = yield* store.census()
            if (census.projects > 0) return { _tag: "Found", census } as const
            // An empty database holds no phone or employee id to conflict with.
            const { ids } = yield* store.apply(demoManifest(appSecret))
            return { _tag: "Seeded", ids } as const
          }),
        )
        .pipe(Effect.orDie)
      if (outcome._tag === "Found") {
        const seed: DemoSeed = { seeded: false, projectId: Option.getOrUndefined(outcome.census.demoProjectId) }
        return seed
      }
      const projectId = outcome.ids.projects.demo?.id
      if (projectId === undefined) return yield* Effect.die(new Error("the demo manifest provisioned no demo project"))
      const seed: DemoSeed = { seeded: true, appId: "demo-app", appSecret, projectId }
      return seed
    })

    return { applyManifest, manifestIds, rotateAppSecret, seedDemo }
  }),
}) {
  static readonly layer = Layer.effect(Tenancy, Tenancy.make)
}
