import { Context } from "effect"

/** Token lifetimes (KEYSPACE_*_TTL): the configuration the token use cases need, and no more. */
export class AuthSettings extends Context.Service<
  AuthSettings,
  {
    readonly accessTokenTtlSeconds: number
    readonly refreshTokenTtlSeconds: number
    readonly actAsTokenTtlSeconds: number
  }
>()("keyspace/ports/AuthSettings") {}
