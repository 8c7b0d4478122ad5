import type { MeetingDetails } from "../../../core/booking/bookings.ts"
import { meetingView } from "../../bookings/meeting-view.ts"

/** The Meeting JSON of what a booking use case returns (everything in hand, nothing read). */
export const meetingDetailsView = (d: MeetingDetails) =>
  meetingView(d.row, d.slot, {
    timeZone: d.timeZone,
    assetName: d.assetName,
    histories: d.histories,
    payments: d.payments,
    showPin: d.showPin,
  })
