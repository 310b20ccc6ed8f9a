import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { clientIp, rateLimitKey } from "./client-ip";

/** A real server (so the socket's peer is real) whose one route answers the address the rate limits would key on. */
async function serveClientIp(trustedProxyHops: number) {
  const app = new Hono<{ Variables: { clientIp: string } }>();
  app.use(clientIp({ trustedProxyHops }));
  app.get("/", (c) => c.text(c.get("clientIp")));
  const server: Server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (forwardedFor?: string) =>
    (await fetch(origin, { headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } })).text();
}

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

describe("the client address", () => {
  it("without trusted proxies is the socket's peer, whatever X-Forwarded-For says", async () => {
    const addressOf = await serveClientIp(0);
    expect(await addressOf("203.0.113.7")).toBe("127.0.0.1");
  });

  it("behind one proxy is the entry that proxy appended: 60 forged left-hand entries give one address, one limit", async () => {
    const addressOf = await serveClientIp(1);
    const seen = new Set<string>();
    for (let attempt = 0; attempt < 60; attempt++) seen.add(await addressOf(`10.9.${attempt}.1, 198.51.100.23`));
    expect([...seen]).toEqual(["198.51.100.23"]);
    // A client that sends no header of its own gets the proxy's single entry.
    expect(await addressOf("198.51.100.24")).toBe("198.51.100.24");
  });

  it("behind N proxies is the N-th entry from the right; a shorter list gives its left-most entry", async () => {
    const addressOf = await serveClientIp(2);
    expect(await addressOf("6.6.6.6, 198.51.100.23, 10.0.0.2")).toBe("198.51.100.23");
    expect(await addressOf("198.51.100.23")).toBe("198.51.100.23");
  });

  it("falls back to the socket's peer when the header is missing or its entry is not an address", async () => {
    const addressOf = await serveClientIp(1);
    expect(await addressOf()).toBe("127.0.0.1");
    expect(await addressOf("1.2.3.4, not-an-address")).toBe("127.0.0.1");
  });

  it("keys IPv6 clients by their /64 and IPv4-mapped IPv6 addresses as IPv4", async () => {
    const addressOf = await serveClientIp(1);
    expect(await addressOf("2001:db8:aa:bb:1:2:3:4")).toBe("2001:db8:aa:bb::/64");
    expect(await addressOf("2001:db8:aa:bb:ffff::9")).toBe("2001:db8:aa:bb::/64");
    expect(await addressOf("::ffff:192.0.2.10")).toBe("192.0.2.10");
    expect(rateLimitKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(rateLimitKey("::ffff:c000:20a")).toBe("192.0.2.10");
    expect(rateLimitKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(rateLimitKey("::1")).toBe("0:0:0:0::/64");
  });
});
