import { Schema } from "effect"

/**
 * Text limits of the spec are in characters: Unicode code points, as a person (and JSON
 * Schema's minLength/maxLength) counts them, not the UTF-16 units of `String.length`, which
 * count an emoji twice (a 16-emoji webhook secret passed a 32-character minimum).
 */
export const characterCount = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

/**
 * The check of `min` to `max` characters (code points), for `.check` beside other checks; the
 * OpenAPI document shows the same bounds (Effect's own isMinLength counts UTF-16 units, so its
 * document halves a minimum: an 8-unit minimum read as 4 characters).
 */
export const hasCharacters = (min: number, max: number) =>
  Schema.makeFilter(
    (s: string) => {
      const n = characterCount(s)
      if (n < min) return min === 1 ? "must not be empty" : `must be at least ${min} characters`
      return n > max ? `must be at most ${max} characters` : undefined
    },
    { toJsonSchema: () => (min > 0 ? { minLength: min, maxLength: max } : { maxLength: max }) },
  )

/** A string of `min` to `max` characters (code points); the OpenAPI document shows the bounds. */
export const Characters = (min: number, max: number) => Schema.String.check(hasCharacters(min, max))
