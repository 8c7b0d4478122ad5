/**
 * A Map bounded to `max` entries that drops the least recently used first: a Map keeps
 * insertion order, so moving an entry to the end on each use leaves the least recent first.
 * The one eviction rule of the process's answer memos and caches.
 */
export interface RecentMap<K, V> {
  /** The entry, now the most recently used; undefined when absent. */
  readonly get: (key: K) => V | undefined
  /** The entry without counting it as a use. */
  readonly peek: (key: K) => V | undefined
  /** Sets the entry as the most recently used, then drops the least recent beyond `max`. */
  readonly set: (key: K, value: V) => void
  /** The entries' values, least recently used first, without counting them as uses. */
  readonly values: () => IterableIterator<V>
  readonly delete: (key: K) => void
  readonly clear: () => void
  readonly size: () => number
}

const UNKNOWN: unique symbol = Symbol("unknown")

export const recentMap = <K, V>(max: number): RecentMap<K, V> => {
  const entries = new Map<K, V>()
  // The key last set or moved: while it is in the map it is the most recent entry (it leaves
  // the map only by delete or eviction, and comes back only through set). A repeated hit on
  // it (every client polling the same listing) then costs one lookup instead of a lookup, a
  // delete and a set (0.40 -> 0.31 µs a hit on a listing's key, issue 13).
  let last: K | typeof UNKNOWN = UNKNOWN
  return {
    get: (key) => {
      const value = entries.get(key)
      if (value === undefined) return undefined
      if (last !== key) {
        entries.delete(key)
        entries.set(key, value)
        last = key
      }
      return value
    },
    peek: (key) => entries.get(key),
    set: (key, value) => {
      entries.delete(key)
      entries.set(key, value)
      last = key
      if (entries.size > max) entries.delete(entries.keys().next().value as K)
    },
    values: () => entries.values(),
    delete: (key) => void entries.delete(key),
    clear: () => entries.clear(),
    size: () => entries.size,
  }
}
