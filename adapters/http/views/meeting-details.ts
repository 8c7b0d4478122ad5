import type { MeetingDetails } from "../../../core/booking/bookings.ts"
import { paymentFields } from "../../../core/payment/billing.ts"
import { meetingView } from "../../bookings/meeting-view.ts"

/**
 * The Meeting JSON of what a booking use case returns (everything in hand, nothing read).
 * The payment fields come from the core payment records, in the place meetingView puts them
 * (bridge until meeting-view.ts takes payment records itself).
 */
export const meetingDetailsView = (d: MeetingDetails) => {
  const view = meetingView(d.row, d.slot, {
    timeZone: d.timeZone,
    assetName: d.assetName,
    histories: d.histories,
    payments: [],
    showPin: d.showPin,
  })
  if (d.payments.length === 0) return view
  const fields = paymentFields(d.payments, d.slot.status)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(view)) {
    if (k === "billingSummaries") Object.assign(out, fields)
    else out[k] = v
  }
  return out as typeof view
}
