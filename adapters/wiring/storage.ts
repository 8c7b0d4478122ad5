import type { Caches } from "../postgres/cache-epoch.ts"
import type { Database } from "../postgres/database.ts"

/** Where the stores keep their rows: PostgreSQL/PGlite (the service) or memory (model tests). */
export type Storage =
  | {
      readonly profile: "postgres"
      readonly database: Database
      /** The caches the bearer middleware syncs each request (made from `database` when absent). */
      readonly caches?: Caches | undefined
    }
  | { readonly profile: "memory" }
