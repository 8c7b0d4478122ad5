/**
 * Request ids for requests that bring none: a random prefix drawn once per process and a
 * counter. 96 random bits keep the ids of two processes (or of one process before and after a
 * restart) apart; the counter keeps one process's apart. A UUID per request cost ~0.3-2.5 µs
 * of a ~15 µs `/healthz` (issue 13); this is a string concatenation. 26-36 characters.
 */
export const requestIds = (random: (bytes: Uint8Array<ArrayBuffer>) => Uint8Array = (b) => crypto.getRandomValues(b)): (() => string) => {
  let prefix = ""
  for (const b of random(new Uint8Array(12))) prefix += b.toString(16).padStart(2, "0")
  prefix += "-"
  let n = 0
  return () => prefix + (n++).toString(36)
}
