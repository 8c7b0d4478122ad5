import { lineBuffer, type LineBuffer } from "../../adapters/observability/line-buffer.ts"

/**
 * The process's log lines on stdout, one write per event-loop turn (line-buffer.ts). Whatever
 * waits is written when the process exits, however it exits: a signal's shutdown, a startup
 * failure's `process.exit`, an uncaught exception (Node writes to a pipe or file synchronously,
 * so a write in the `exit` event still lands).
 */
export const stdoutLines = (): LineBuffer => {
  // A reader that goes away (`| head`, a log shipper restarting) closes the pipe: the server
  // goes on serving without its log, it does not die of an unhandled EPIPE.
  let readerGone = false
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e
    readerGone = true
  })
  const lines = lineBuffer((chunk) => {
    if (!readerGone) process.stdout.write(chunk)
  }, setImmediate)
  process.on("exit", lines.flush)
  return lines
}
