import { Layer } from "effect"
import { Tokens } from "../../../core/auth/tokens.ts"
import { PartnerMembers } from "../../../core/member/members.ts"
import { AuthSettings } from "../../../core/ports/auth-settings.ts"
import { Tenancy } from "../../../core/tenancy/tenancy.ts"
import { AppConfig } from "../../config/config.ts"
import { SecretsLive } from "../../crypto/secrets.ts"
import {
  CredentialStoreMemory,
  DeviceEnrollmentMemory,
  MemberStoreMemory,
  UnitStoreMemory,
} from "../../memory/member-store.ts"
import { ManifestStoreMemory, RateLimiterMemory, TokenStoreMemory } from "../../memory/tenancy-store.ts"
import { CredentialStorePostgres } from "../../postgres/credential-store.ts"
import { DeviceEnrollmentPostgres } from "../../postgres/device-store.ts"
import { ManifestStorePostgres } from "../../postgres/manifest-store.ts"
import { MemberStorePostgres } from "../../postgres/member-store.ts"
import { RateLimiterPostgres } from "../../postgres/rate-limiter.ts"
import { TokenStorePostgres } from "../../postgres/token-store.ts"
import { UnitStorePostgres } from "../../postgres/unit-store.ts"

/** Token lifetimes from the configuration (the core does not read AppConfig). */
const authSettings = Layer.effect(
  AuthSettings,
  AppConfig.useSync((c) =>
    AuthSettings.of({
      accessTokenTtlSeconds: c.accessTokenTtlSeconds,
      refreshTokenTtlSeconds: c.refreshTokenTtlSeconds,
      actAsTokenTtlSeconds: c.actAsTokenTtlSeconds,
    }),
  ),
)

/** What both profiles add besides their stores: secret hashing and token lifetimes. */
const shared = Layer.mergeAll(SecretsLive, authSettings)

/**
 * The members stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile, and its use cases (which need only ports).
 */
export const membersStores = {
  postgres: Layer.mergeAll(
    MemberStorePostgres,
    CredentialStorePostgres,
    UnitStorePostgres,
    DeviceEnrollmentPostgres,
    TokenStorePostgres,
    RateLimiterPostgres,
    ManifestStorePostgres,
  ).pipe(Layer.provideMerge(shared)),
  memory: Layer.mergeAll(
    MemberStoreMemory,
    CredentialStoreMemory,
    UnitStoreMemory,
    DeviceEnrollmentMemory,
    TokenStoreMemory,
    RateLimiterMemory,
    ManifestStoreMemory,
  ).pipe(Layer.provideMerge(shared)),
}
export const membersUseCases = Layer.mergeAll(PartnerMembers.layer, Tokens.layer, Tenancy.layer)
