import { Schema } from "effect"
import { defineGroup } from "../operation.ts"

const PaymentIdParam = Schema.Struct({ paymentId: Schema.String })
const UNAVAILABLE = { status: 503, code: "SV004", meaning: "The database or the service clock cannot be reached: retry (Retry-After)." } as const

/** The sandbox gateway's hosted page (operator contract section 4): for people, not clients. */
export const paymentsGroup = defineGroup({
  tag: "Payments",
  description:
    "Sandbox payment page at payment.webPaymentUrl. HTML for a person with a browser; no token.",
  operations: [
    {
      method: "get",
      path: "/pay/:paymentId",
      operationId: "getPaymentPage",
      tag: "Payments",
      summary: "Hosted payment page",
      description: "Shows the booking, the amount, the QR and a Pay button.",
      security: "none",
      pathParams: PaymentIdParam,
      defaultErrors: false,
      // The database or the shared clock out of reach: the API's JSON envelope, retryable.
      extraErrors: [UNAVAILABLE],
      responses: [
        {
          status: 200,
          description: "The page (or the payment's final status).",
          contentType: "text/html",
        },
        { status: 404, description: "Unknown payment.", contentType: "text/html" },
      ],
    },
    {
      method: "post",
      path: "/pay/:paymentId",
      operationId: "settlePayment",
      tag: "Payments",
      summary: "Pay or decline (HTML form post)",
      description:
        "Form field outcome=paid moves the booking unpaid -> active and redirects to frontendRedirectUrl when " +
        "one was given; outcome=failed declines. After the window lapsed, or for a voided payment, an error " +
        "page and nothing changes.",
      security: "none",
      pathParams: PaymentIdParam,
      formBody: Schema.Struct({ outcome: Schema.Literals(["paid", "failed"]) }),
      defaultErrors: false,
      // The body limit answers before the page does: the API's JSON envelope.
      extraErrors: [{ status: 413, code: "SV001", meaning: "Request body too large." }, UNAVAILABLE],
      responses: [
        { status: 200, description: "Result page.", contentType: "text/html" },
        { status: 303, description: "Paid: redirect to frontendRedirectUrl." },
        {
          status: 400,
          description: "outcome missing or not paid/failed.",
          contentType: "text/html",
        },
        { status: 404, description: "Unknown payment.", contentType: "text/html" },
        { status: 409, description: "Window lapsed or payment voided.", contentType: "text/html" },
      ],
    },
  ],
})
