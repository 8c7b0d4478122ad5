/**
 * A half-open time interval [start, end) of epoch milliseconds. This file holds the ONE
 * overlap rule of the service: a booking ending at 10:00 and another starting at 10:00 do not
 * conflict, and an empty interval (start === end) overlaps nothing.
 */
export interface Interval {
  readonly start: number
  readonly end: number
}

export const make = (start: number, end: number): Interval => ({ start, end })

/** Finite bounds and strictly positive length. */
export const isValid = (self: Interval): boolean =>
  Number.isFinite(self.start) && Number.isFinite(self.end) && self.end > self.start

export const isEmpty = (self: Interval): boolean => !(self.end > self.start)

export const durationMs = (self: Interval): number => Math.max(0, self.end - self.start)

/** Half-open overlap: both intervals non-empty and each starts before the other ends. */
export const overlaps = (a: Interval, b: Interval): boolean =>
  !isEmpty(a) && !isEmpty(b) && a.start < b.end && b.start < a.end

/** `inner` lies entirely inside `outer` (touching bounds count as inside). */
export const contains = (outer: Interval, inner: Interval): boolean =>
  outer.start <= inner.start && inner.end <= outer.end

/** The instant lies inside [start, end): the end instant itself is outside. */
export const containsInstant = (self: Interval, instant: number): boolean =>
  self.start <= instant && instant < self.end

/** The common part of two intervals, or undefined when they do not overlap. */
export const intersection = (a: Interval, b: Interval): Interval | undefined =>
  overlaps(a, b) ? { start: Math.max(a.start, b.start), end: Math.min(a.end, b.end) } : undefined
