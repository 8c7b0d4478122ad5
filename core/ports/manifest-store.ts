import { Context, type Effect, type Option } from "effect"
import type { StateConflict } from "../shared/errors.ts"
import type { Manifest } from "../tenancy/manifest.ts"
import type { ManifestIds } from "../tenancy/manifest-ids.ts"

/** The conflict of a manifest app whose appId another app (another key) already has. */
export const APP_ID_TAKEN = "a manifest app's appId is already the appId of an app with another key"

/** What applying a manifest did. */
export interface ManifestApplied {
  readonly ids: ManifestIds
  /**
   * Rooms and desks that existed before and whose config now plans ticks differently
   * (asset-config.ts `retimes`): their live bookings' ticks are planned again.
   */
  readonly retimedAssets: ReadonlyArray<string>
}

/** Tenancy as provisioned by the operator's manifest. */
export class ManifestStore extends Context.Service<
  ManifestStore,
  {
    /**
     * Applies a validated manifest (idempotent; in tx, after every other apply on any process has
     * committed: `serialize`): the key -> id map and the assets retimed; a phone or employee id a
     * user outside the manifest holds fails it, nothing written.
     */
    readonly apply: (manifest: Manifest) => Effect.Effect<ManifestApplied, StateConflict>
    /**
     * In tx: waits until no other manifest apply or demo seed is running on any process, and
     * keeps them out until the transaction ends (two applies of one new key would both insert
     * it). `apply` takes it itself; a caller that reads before applying (the demo seed) takes it first.
     */
    readonly serialize: () => Effect.Effect<void>
    /** The key -> id map of everything provisioned so far. */
    readonly ids: () => Effect.Effect<ManifestIds>
    /** How many projects exist, and the id of the one keyed `demo` (the demo seed's check). */
    readonly census: () => Effect.Effect<{ readonly projects: number; readonly demoProjectId: Option.Option<string> }>
  }
>()("keyspace/ports/ManifestStore") {}
