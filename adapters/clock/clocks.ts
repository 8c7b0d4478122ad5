import type { ClockShape } from "../../core/ports/clock.ts"

export const systemClock = (): ClockShape => ({ now: () => Date.now(), mode: "system" })

/**
 * A frozen clock that moves only forward when told (KEYSPACE_CLOCK=manual); the service runs it
 * as the deployment's shared clock (shared-clock.ts).
 */
export class ManualClock implements ClockShape {
  readonly mode = "manual" as const
  #now: number
  constructor(start: number) {
    this.#now = start
  }
  now = (): number => this.#now
  set(to: number): void {
    if (to < this.#now) throw new RangeError("the manual clock never moves backwards")
    this.#now = to
  }
}
