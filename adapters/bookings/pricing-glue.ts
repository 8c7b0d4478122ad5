/** @deprecated bridge: the pricing rule lives in core/booking/pricing.ts; import it from there. */
export { minutesPerLocalDay, priceOf } from "../../core/booking/pricing.ts"
