import { connect, type Socket } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client";
import { createTestShop } from "#server/testing/test-app";
import { openTestDatabase } from "#server/testing/test-database";
import { HEADERS_TIMEOUT_MS } from "./connection-limits";

/** A raw TCP client: what it has received so far, and a promise that settles when the server closes it. */
async function openConnection(port: number) {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = "";
  socket.setEncoding("latin1").on("data", (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => undefined);
  return {
    socket,
    closed,
    get received() {
      return received;
    },
  };
}

async function connectionsHeld(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** The socket's close, or a failure naming the bound if it stayed open longer. */
async function closedWithin(milliseconds: number, closed: Promise<void>) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still open after ${milliseconds} ms`)), milliseconds);
  });
  try {
    await Promise.race([closed, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe("connection limits on a listening shop", () => {
  let database: DatabaseHandle;
  let running: Awaited<ReturnType<Awaited<ReturnType<typeof createTestShop>>["listen"]>>;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    database = await openTestDatabase("pglite");
    running = await (await createTestShop(database, { maxConnections: 3 })).listen(0);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await running.close();
    await database.close();
  });

  it("closes a connection whose headers trickle in (slowloris) within the headers timeout, with 408", async () => {
    const slow = await openConnection(running.port);
    sockets.push(slow.socket);
    const startedAt = performance.now();
    slow.socket.write("GET /healthz HTTP/1.1\r\nHost: shop.test\r\nX-Slow: ");
    // Node checks the timeout once a second: the close comes within a second or so of the bound.
    await closedWithin(HEADERS_TIMEOUT_MS + 3_000, slow.closed);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 1_000);
    expect(slow.received).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);

  it("answers a connection over the cap with a 503 and Retry-After, and serves again once one closes", async () => {
    const held: Awaited<ReturnType<typeof openConnection>>[] = [];
    for (let index = 0; index < 3; index++) held.push(await openConnection(running.port));
    sockets.push(...held.map((connection) => connection.socket));
    await expect.poll(() => connectionsHeld(running.server)).toBe(3);

    const extra = await openConnection(running.port);
    sockets.push(extra.socket);
    extra.socket.write("GET /healthz HTTP/1.1\r\nHost: shop.test\r\n\r\n");
    await closedWithin(5_000, extra.closed);
    const [head = "", body] = extra.received.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(head).toMatch(/\r\nRetry-After: 5\r\n/);
    expect(body).toBe("The shop is too busy right now. Please try again in a moment.\n");

    // The held connections are served as usual.
    held[0]?.socket.write("GET /healthz HTTP/1.1\r\nHost: shop.test\r\n\r\n");
    await expect.poll(() => held[0]?.received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);

    held[1]?.socket.destroy();
    await expect.poll(() => connectionsHeld(running.server)).toBe(2);
    const response = await fetch(`${running.url}/healthz`);
    expect(response.status).toBe(200);
  });
});
