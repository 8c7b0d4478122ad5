import { Context, type Effect } from "effect"

/** Secrets at rest and bearer tokens: slow salted hashes for app secrets, SHA-256 for tokens. */
export class Secrets extends Context.Service<
  Secrets,
  {
    readonly hash: (secret: string) => Effect.Effect<string>
    /** Constant time; a malformed stored hash verifies nothing. */
    readonly verify: (secret: string, stored: string) => Effect.Effect<boolean>
    /** Hex SHA-256 (synchronous: every authenticated request hashes its token). */
    readonly sha256: (value: string) => string
    /** A fresh opaque bearer token or secret (32 random bytes, base64url). */
    readonly opaqueToken: () => string
  }
>()("keyspace/ports/Secrets") {}
