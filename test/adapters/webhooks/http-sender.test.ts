import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeHttpSender } from "../../../adapters/webhooks/http-sender.ts"

/**
 * A receiver closes an idle kept-alive connection (its keep-alive timeout) just as a delivery
 * goes out on it: the delivery is sent again once on a new connection, not recorded as an
 * attempt that failed with "connection reset" (a crash probe saw a stop's deliveries spend an
 * attempt each so).
 */
describe("the webhook sender on a kept-alive connection the receiver resets", () => {
  let server: net.Server
  let port = 0
  const received: string[] = []
  const sockets = new Set<net.Socket>()
  beforeAll(async () => {
    let connections = 0
    server = net.createServer((socket) => {
      sockets.add(socket)
      const nth = ++connections
      let requests = 0
      let buffer = ""
      socket.on("data", (chunk) => {
        buffer += chunk.toString("latin1")
        for (let end = buffer.indexOf("\r\n\r\n"); end >= 0; end = buffer.indexOf("\r\n\r\n")) {
          const head = buffer.slice(0, end)
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
          if (buffer.length < end + 4 + length) return
          const body = buffer.slice(end + 4, end + 4 + length)
          buffer = buffer.slice(end + 4 + length)
          requests++
          // The first connection's second request meets a reset, as a closing idle socket does.
          if (nth === 1 && requests === 2) return void socket.resetAndDestroy()
          received.push(body)
          socket.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n")
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as net.AddressInfo).port
  })
  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it("sends the delivery again on a new connection and records its answer", async () => {
    const send = makeHttpSender({ maxSockets: 1 })
    const request = (body: string) =>
      send({ url: new URL(`http://127.0.0.1:${port}/hook`), address: "127.0.0.1", headers: { "content-type": "application/json" }, body, timeoutMs: 5_000 })
    expect(await request('{"n":1}')).toMatchObject({ statusCode: 200 })
    expect(await request('{"n":2}')).toMatchObject({ statusCode: 200 })
    expect(received).toEqual(['{"n":1}', '{"n":2}'])
  })
})
