/** Every table of the service; drizzle.config.ts points here. */
export * from "./tables/tenancy.ts"
export * from "./tables/identity.ts"
