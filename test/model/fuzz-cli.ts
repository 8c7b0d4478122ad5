/**
 * `npm run fuzz` — the model-based fuzzer of the real Bookings use case (memory stores), then the
 * HTTP fuzzer: mixed valid and malformed requests over keep-alive sockets, as clients send
 * them, against a real server (test/fuzz/wire-fuzz.ts). A request without a complete answer
 * (a connection reset under it) or a 5xx is a failure.
 *
 *   npm run fuzz -- --runs 100000          a number of random command sequences
 *   npm run fuzz -- --seconds 300          or a time budget
 *   npm run fuzz -- --seed 42 --path 3:1   replay one failure (printed on failure)
 *   npm run fuzz -- --max-commands 80      longer sequences
 *   npm run fuzz -- --only http --requests 20000 --sockets 8
 *                                          only the HTTP fuzzer (default 2000 requests), against
 *   --url http://127.0.0.1:3000 --admin-token T --max-body-bytes N
 *                                          a running server (Bun, Deno) instead of one booted here
 */
import fc from "fast-check"
import { parseArgs } from "node:util"
import { bookingsProperty } from "./booking-model.ts"
import { memoryDriver } from "./memory-driver.ts"

const { values } = parseArgs({
  options: {
    runs: { type: "string" },
    seconds: { type: "string" },
    seed: { type: "string" },
    path: { type: "string" },
    "max-commands": { type: "string", default: "40" },
    only: { type: "string" },
    requests: { type: "string", default: "2000" },
    sockets: { type: "string", default: "8" },
    url: { type: "string" },
    "admin-token": { type: "string" },
    "max-body-bytes": { type: "string" },
  },
})

const seconds = values.seconds === undefined ? undefined : Number(values.seconds)
const runs = values.runs === undefined ? (seconds ? 1_000_000_000 : 10_000) : Number(values.runs)
const seed = values.seed === undefined ? Date.now() ^ (Math.random() * 0x7fffffff) : Number(values.seed)
const maxCommands = Number(values["max-commands"])
const requests = Number(values.requests)
const sockets = Number(values.sockets)
const maxBodyBytes = values["max-body-bytes"] === undefined ? undefined : Number(values["max-body-bytes"])
if (![runs, seed, maxCommands, seconds ?? 1, requests, sockets, maxBodyBytes ?? 1].every(Number.isFinite) || ![undefined, "model", "http"].includes(values.only)) {
  console.error("usage: npm run fuzz -- [--only model|http] [--runs N | --seconds S] [--seed N --path P] [--max-commands N] [--requests N --sockets N --url U --admin-token T --max-body-bytes N]")
  process.exit(2)
}

/** The HTTP fuzzer; exits with its verdict. */
const fuzzHttp = async (): Promise<never> => {
  const { runWireFuzz } = await import("../fuzz/wire-fuzz.ts")
  const { ok } = await runWireFuzz({ url: values.url, adminToken: values["admin-token"], requests, seed, sockets, maxBodyBytes })
  if (!ok) console.error(`\nreplay: npm run fuzz -- --only http --seed ${seed} --requests ${requests}${values.url ? ` --url ${values.url}` : ""}`)
  process.exit(ok ? 0 : 1)
}
if (values.only === "http") await fuzzHttp()

console.log(`fuzzing the booking lifecycle: seed=${seed} runs=${values.seconds ? `<= ${seconds}s` : runs} maxCommands=${maxCommands}`)
const started = Date.now()
const details = await fc.check(bookingsProperty(memoryDriver, maxCommands), {
  numRuns: runs,
  seed,
  ...(values.path ? { path: values.path } : {}),
  ...(seconds ? { interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false } : {}),
})
const took = ((Date.now() - started) / 1000).toFixed(1)
if (details.failed) {
  console.error(fc.defaultReportMessage(details))
  console.error(`\nreplay: npm run fuzz -- --seed ${details.seed} --path ${details.counterexamplePath}`)
  process.exit(1)
}
console.log(`${details.numRuns} sequences passed in ${took}s${details.interrupted ? " (time budget reached)" : ""}`)
if (values.only !== "model") await fuzzHttp()
