import type { Database } from "../postgres/database.ts"

/** Where the stores keep their rows: PostgreSQL/PGlite (the service) or memory (model tests). */
export type Storage = { readonly profile: "postgres"; readonly database: Database } | { readonly profile: "memory" }
