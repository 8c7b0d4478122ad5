import { Result } from "effect"
import { parsePhoneNumberFromString } from "libphonenumber-js"

/** Local numbers (no country code) are Thai: the service's home market. */
export const DEFAULT_PHONE_COUNTRY = "TH"

/** Separators people type; everything else must be digits with an optional leading "+". */
const SEPARATORS = /[\s\-().]/g
const DIALABLE = /^\+?\d{3,17}$/

/**
 * Normalizes a phone number to E.164 ("0812345678" -> "+66812345678"). Pre-checking the
 * characters keeps libphonenumber from extracting a number out of free text ("call 08...").
 * The number must be valid for its country per libphonenumber metadata; extensions are
 * refused because E.164 cannot carry them. Failure is one validation message.
 */
export const normalizePhone = (input: string): Result.Result<string, string> => {
  const compact = input.replace(SEPARATORS, "")
  const invalid = Result.fail(`phone "${input}" is not a valid phone number`)
  if (!DIALABLE.test(compact)) return invalid
  const parsed = parsePhoneNumberFromString(compact, DEFAULT_PHONE_COUNTRY)
  if (parsed === undefined || !parsed.isValid() || parsed.ext !== undefined) return invalid
  return Result.succeed(parsed.number)
}
