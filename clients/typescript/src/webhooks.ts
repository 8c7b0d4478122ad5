/** The webhook receiver kit: verify signature, timestamp and (optionally) the receiver JWT. */
export * from "../../../adapters/webhooks/receiver-kit.ts"
