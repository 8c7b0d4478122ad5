/**
 * `npm run fuzz` — the model-based booking lifecycle fuzzer for domain engineers.
 *
 *   npm run fuzz -- --runs 100000          a number of random command sequences
 *   npm run fuzz -- --seconds 300          or a time budget
 *   npm run fuzz -- --seed 42 --path 3:1   replay one failure (printed on failure)
 *   npm run fuzz -- --max-commands 80      longer sequences
 */
import fc from "fast-check"
import { parseArgs } from "node:util"
import { lifecycleProperty } from "../core/booking/booking-lifecycle-model.ts"

const { values } = parseArgs({
  options: {
    runs: { type: "string" },
    seconds: { type: "string" },
    seed: { type: "string" },
    path: { type: "string" },
    "max-commands": { type: "string", default: "40" },
  },
})

const seconds = values.seconds === undefined ? undefined : Number(values.seconds)
const runs = values.runs === undefined ? (seconds ? 1_000_000_000 : 10_000) : Number(values.runs)
const seed = values.seed === undefined ? Date.now() ^ (Math.random() * 0x7fffffff) : Number(values.seed)
const maxCommands = Number(values["max-commands"])
if (![runs, seed, maxCommands, seconds ?? 1].every(Number.isFinite)) {
  console.error("usage: npm run fuzz -- [--runs N | --seconds S] [--seed N --path P] [--max-commands N]")
  process.exit(2)
}

console.log(`fuzzing the booking lifecycle: seed=${seed} runs=${values.seconds ? `<= ${seconds}s` : runs} maxCommands=${maxCommands}`)
const started = Date.now()
const details = fc.check(lifecycleProperty(maxCommands), {
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
