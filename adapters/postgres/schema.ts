/** Every table of the service; drizzle.config.ts points here. */
export * from "./tables/tenancy.ts"
export * from "./tables/identity.ts"
export * from "./tables/bookings.ts"
export * from "./tables/members.ts"
export * from "./tables/scheduler.ts"
export * from "./tables/webhook-deliveries.ts"
export * from "./tables/payments.ts"
