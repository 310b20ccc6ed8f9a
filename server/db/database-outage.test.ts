import { createServer, connect, type Server, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { openDatabase } from "./client";
import { isDatabaseUnavailable } from "./database-errors";
import { createBrowser, createTestShop } from "../testing/test-app";
import { testSchemaName } from "../testing/test-database";

describe("isDatabaseUnavailable", () => {
  it("recognises a database that cannot be reached, and nothing else", () => {
    expect(isDatabaseUnavailable(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("wrapped", { cause: Object.assign(new Error("x"), { code: "08006" }) }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("undefined is not a function"))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});

/**
 * A TCP proxy between the shop and PostgreSQL that the test can cut and restore: a real outage as the shop sees it
 * (connections dropped, new ones refused), without touching the PostgreSQL server other tests use.
 */
async function startCuttableProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => sockets.delete(socket));
          socket.on("error", () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => {
        const address = server?.address();
        resolve(typeof address === "object" && address ? address.port : 0);
      });
    });
  const port = await listen(0);
  return {
    port,
    async cut() {
      const closed = new Promise<void>((resolve) => server?.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      server = undefined;
    },
    async restore() {
      if (!server) await listen(port);
    },
  };
}

const url = process.env.TEST_DATABASE_URL;

describe.runIf(url)("a PostgreSQL outage", () => {
  it("answers 503 with a retry message while the database is down, changes nothing, and recovers by itself", async () => {
    const target = new URL(url ?? "");
    const proxy = await startCuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(target);
    viaProxy.port = String(proxy.port);
    const schema = testSchemaName("outage");
    const admin = openDatabase({ kind: "postgres", url: url ?? "" });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    const database = openDatabase({ kind: "postgres", url: viaProxy.toString(), schema });
    try {
      const { app } = await createTestShop(database);
      const browser = createBrowser(app);
      expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);
      expect((await browser.postJson("/basket/add", { productId: "23445930" })).status).toBe(201);

      await proxy.cut();
      for (const attempt of [() => browser.get("/basket"), () => browser.postJson("/basket/add", { productId: "12321341" })]) {
        const response = await attempt();
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("5");
        expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
          "The shop can't reach its database right now. Nothing was changed; please try again in a moment.",
        );
      }
      expect(await (await browser.get("/healthz")).json()).toMatchObject({ status: "unavailable" });
      // A browser loading a page gets a page, not JSON.
      const page = await browser.send("/basket", { headers: { accept: "text/html" } });
      expect(page.status).toBe(503);
      expect(await page.text()).toContain("please try again in a moment");

      await proxy.restore();
      await expect.poll(async () => (await browser.get("/healthz")).status, { timeout: 15_000 }).toBe(200);
      const basket = (await (await browser.get("/basket")).json()) as { basket: { items: { product: { id: string } }[] } };
      expect(basket.basket.items.map((item) => item.product.id)).toEqual(["12321341", "23445930"]);
      expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);
    } finally {
      await proxy.restore().catch(() => undefined);
      await database.close();
      await admin.close();
    }
  });
});
