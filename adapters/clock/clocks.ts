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

/**
 * The manual clock of a whole deployment, kept in the database so every process reads one
 * clock (adapters/postgres/shared-clock.ts implements it).
 */
export interface SharedClock extends ClockShape {
  readonly sharedByDeployment: true
  /** Brings this process's copy up to date (before every API request). */
  refresh(): Promise<number>
  /** Moves the deployment's clock to `target(current)`, runs `after` under the same lock. */
  advance(target: (current: number) => number, after: (now: number) => Promise<void>): Promise<number>
  /**
   * Calls `listener` whenever this process learns that another process moved the clock (its
   * NOTIFY, the poll, a request's refresh); returns the unsubscribe. The advancing process
   * applies the ticks due; a process that sees the move applies them too, so ticks are not
   * left waiting for the next advance when the advancing process stops half-way.
   */
  onMoved(listener: (now: number) => void): () => void
  /** Resolves once no process is advancing the clock (at once when this process is alone). */
  whenAdvanced(): Promise<void>
  close(): Promise<void>
}

export const isSharedManual = (clock: unknown): clock is SharedClock =>
  typeof clock === "object" && clock !== null && (clock as Partial<SharedClock>).sharedByDeployment === true
