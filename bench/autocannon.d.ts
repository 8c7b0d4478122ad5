// autocannon ships no types and @types/autocannon is not a dependency: the part bench/run.ts uses.
declare module "autocannon" {
  interface Request {
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly body?: string
    readonly setupRequest?: (req: any) => any
    readonly onResponse?: (status: number, body: string) => void
  }
  interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
    readonly amount?: number
    readonly requests?: ReadonlyArray<Request>
  }
  interface Histogram {
    readonly average: number
    readonly total: number
    readonly p50: number
    readonly p99: number
  }
  interface Result {
    readonly requests: Histogram
    readonly latency: Histogram
    /** Answers whose status was not 2xx. */
    readonly non2xx: number
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
