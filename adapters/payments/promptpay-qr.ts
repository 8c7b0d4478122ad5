import generatePayload from "promptpay-qr"
import QRCode from "qrcode"

/**
 * QR images for payments, made offline. A prompt-pay payment's QR carries a real PromptPay
 * payload (EMVCo merchant-presented mode, dynamic, with the amount, CRC16 checksum), so any
 * Thai banking app reads the merchant and the amount from it. Other channels have no
 * scannable standard here, so their QR simply opens the web payment page.
 */

/** The EMVCo PromptPay payload for `amount` THB to the merchant's PromptPay id. */
export const promptPayPayload = (promptPayId: string, amount: number): string =>
  generatePayload(promptPayId, { amount })

/** Any text as a PNG data URI (`data:image/png;base64,...`). */
export const qrDataUri = (text: string): Promise<string> =>
  // Level M survives a smudged phone screen; 4 modules of quiet zone is what scanners expect.
  QRCode.toDataURL(text, { errorCorrectionLevel: "M", margin: 4, width: 320, type: "image/png" })
