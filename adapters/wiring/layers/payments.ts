import { Layer } from "effect"
import { Payments } from "../../../core/payment/payments.ts"
import { PaymentStoreMemory } from "../../memory/payment-store.ts"
import { PaymentGatewaySandbox } from "../../payments/sandbox-gateway.ts"
import { PaymentStorePostgres } from "../../postgres/payment-store.ts"

/**
 * The payments stream's part of the layer graph (adapters/wiring/app-layer.ts): its stores for
 * each storage profile (with the gateway of KEYSPACE_PAYMENTS, which needs only AppConfig),
 * and its use cases (which need only ports).
 */
export const paymentsStores = {
  postgres: Layer.mergeAll(PaymentStorePostgres, PaymentGatewaySandbox),
  memory: Layer.mergeAll(PaymentStoreMemory, PaymentGatewaySandbox),
}
export const paymentsUseCases = Payments.layer
