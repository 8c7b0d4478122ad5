import { Context, type Effect, type Option } from "effect"
import type { Discount } from "../booking/pricing.ts"

/** A project's discount codes, looked up in their normalized form (core/booking/pricing.ts normalizeDiscountCode). */
export class Discounts extends Context.Service<
  Discounts,
  {
    /** The active discount of the project with this code (any case, surrounding spaces ignored). */
    readonly byCode: (projectId: string, code: string) => Effect.Effect<Option.Option<Discount>>
  }
>()("keyspace/ports/Discounts") {}
