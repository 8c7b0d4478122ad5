/** @deprecated bridge: the pricing rules live in core/booking/pricing.ts (callers of other streams move there). */
export { minutesPerLocalDay, priceOf } from "../../core/booking/pricing.ts"
