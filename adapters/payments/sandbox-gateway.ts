import { Effect, Layer } from "effect"
import {
  PaymentGateway,
  type PaymentGatewayShape,
  type PaymentHandoff,
  type PaymentOrder,
} from "../../core/ports/payments.ts"
import { AppConfig } from "../config/config.ts"
import { promptPayPayload, qrDataUri } from "./promptpay-qr.ts"

/**
 * The built-in sandbox gateway (operator contract section 4, KEYSPACE_PAYMENTS=sandbox).
 * Its "hosted page" is this service's own /pay/{paymentId} (adapters/http/routes/pay-page.ts),
 * where a person presses Pay or Decline; no money moves. The QR is still real: a prompt-pay
 * payment shows an EMVCo PromptPay payload for the amount to KEYSPACE_PROMPTPAY_ID, so the
 * page looks and scans like production.
 */
export const makeSandboxGateway = (options: {
  readonly publicUrl: string
  readonly promptPayId: string
}): PaymentGatewayShape => ({
  name: "sandbox",
  open: (order: PaymentOrder): Effect.Effect<PaymentHandoff> => {
    const webPaymentUrl = sandboxPaymentUrl(options.publicUrl, order.paymentId)
    const qrText =
      order.channel === "prompt-pay"
        ? promptPayPayload(options.promptPayId, order.amount)
        : webPaymentUrl
    return Effect.map(
      Effect.promise(() => qrDataUri(qrText)),
      (webPaymentQr) => ({ webPaymentUrl, webPaymentQr, gatewayRef: order.paymentId }),
    )
  },
  // The sandbox page reads the payment's own status, so a voided payment is refused there.
  void: () => Effect.void,
})

/** `{KEYSPACE_PUBLIC_URL}/pay/{paymentId}`, as the contract fixes it. */
export const sandboxPaymentUrl = (publicUrl: string, paymentId: string): string =>
  `${publicUrl.replace(/\/+$/, "")}/pay/${encodeURIComponent(paymentId)}`

/** The gateway of KEYSPACE_PAYMENTS (only `sandbox` exists today). */
export const PaymentGatewaySandbox = Layer.effect(
  PaymentGateway,
  AppConfig.useSync((config) =>
    PaymentGateway.of(makeSandboxGateway({ publicUrl: config.publicUrl, promptPayId: config.promptPayId })),
  ),
)
