import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest } from "node:http";
import { createServer, connect, type AddressInfo, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { openDatabase } from "./client";
import { isDatabaseUnavailable } from "./database-errors";
import { createApp } from "#server/http/app";
import { createLogger } from "#server/logger";
import { createServices } from "#server/services";
import { addDeliveryAddress, createBrowser, createTestShop } from "#server/testing/test-app";
import {
  SEPARATE_PROCESSOR_KEYS,
  startProcessorProcess,
  stopProcessorProcess,
} from "#server/testing/processor-process";
import { testSchemaName } from "#server/testing/test-database";

describe("isDatabaseUnavailable", () => {
  it("recognises a database that cannot be reached, and nothing else", () => {
    expect(
      isDatabaseUnavailable(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(
      isDatabaseUnavailable(new Error("wrapped", { cause: Object.assign(new Error("x"), { code: "08006" }) })),
    ).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('database "x" does not exist'), { code: "3D000" }))).toBe(
      true,
    );
    expect(
      isDatabaseUnavailable(Object.assign(new Error('password authentication failed for user "x"'), { code: "28P01" })),
    ).toBe(true);
    expect(isDatabaseUnavailable(new Error("Query read timeout"))).toBe(true);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error("cannot execute INSERT in a read-only transaction"), { code: "25006" }),
      ),
    ).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(
      isDatabaseUnavailable(Object.assign(new Error("lastval is not yet defined in this session"), { code: "55000" })),
    ).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("undefined is not a function"))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});

/**
 * A TCP proxy between the shop and PostgreSQL that the test can cut and restore: a real outage as the shop sees it
 * (connections dropped, new ones refused), without touching the PostgreSQL server other tests use. It can also
 * freeze: every connection stays open but nothing is forwarded either way, as with a paused server or a network
 * partition, where no error ever arrives.
 */
async function startCuttableProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  /** Each connection to the server, with the shop's side of it. */
  const upstreams = new Map<Socket, Socket>();
  let server: Server | undefined;
  let frozen = false;
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
        upstreams.set(upstream, client);
        upstream.on("close", () => upstreams.delete(upstream));
        if (frozen) for (const socket of [client, upstream]) socket.pause();
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
    /** Stops forwarding without closing anything: what is sent sits unread, as on a silent link. */
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    /**
     * The server's side of every connection goes away while the shop's side stays open and says nothing, as when a
     * failover takes the server and no close reaches the pool: each pooled connection is found broken only when the
     * next statement is sent on it (the proxy then closes it).
     */
    breakQuietly() {
      for (const [upstream, client] of upstreams) {
        client.unpipe(upstream);
        upstream.destroy();
        client.once("data", () => client.destroy());
        client.resume();
      }
    },
  };
}

const url = process.env.TEST_DATABASE_URL;

// PGlite runs in-process: there is no link to lose, so these stories need a PostgreSQL server. CI sets
// TEST_DATABASE_URL; without it they are skipped, and say so.
const SKIPPED_WITHOUT_POSTGRES = "skipped: TEST_DATABASE_URL is not set (PostgreSQL outage stories need a server)";
if (!url) console.warn(`database-outage.test.ts: ${SKIPPED_WITHOUT_POSTGRES}`);

/** A fresh schema on the test server, reached through a proxy the test can cut or freeze. */
async function openThroughProxy(label: string, poolSize?: number) {
  const target = new URL(url ?? "");
  const proxy = await startCuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(target);
  viaProxy.port = String(proxy.port);
  const schema = testSchemaName(label);
  const admin = openDatabase({ kind: "postgres", url: url ?? "" });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  const database = openDatabase({ kind: "postgres", url: viaProxy.toString(), schema, poolSize });
  return {
    proxy,
    schema,
    database,
    async close() {
      proxy.thaw();
      await proxy.restore().catch(() => undefined);
      await database.close();
      await admin.close();
    },
  };
}

/** The answer every request gets while the database cannot be reached. */
async function expectTryAgain(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
    "The shop can't reach its database right now. Nothing was changed; please try again in a moment.",
  );
}

describe.skipIf(!url)(`a PostgreSQL outage${url ? "" : ` (${SKIPPED_WITHOUT_POSTGRES})`}`, () => {
  it("answers 503 with a retry message while the database is down, changes nothing, and recovers by itself", async () => {
    const { proxy, database, close } = await openThroughProxy("outage");
    try {
      const { app } = await createTestShop(database);
      const browser = createBrowser(app);
      expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);
      expect((await browser.postJson("/basket/add", { productId: "23445930" })).status).toBe(201);

      await proxy.cut();
      for (const attempt of [
        () => browser.get("/basket"),
        () => browser.postJson("/basket/add", { productId: "12321341" }),
      ]) {
        await expectTryAgain(await attempt());
      }
      expect(await (await browser.get("/healthz")).json()).toMatchObject({ status: "unavailable" });
      // A browser loading a page gets a page, not JSON.
      const page = await browser.send("/basket", { headers: { accept: "text/html" } });
      expect(page.status).toBe(503);
      expect(await page.text()).toContain("please try again in a moment");

      await proxy.restore();
      await expect.poll(async () => (await browser.get("/healthz")).status, { timeout: 15_000 }).toBe(200);
      const basket = (await (await browser.get("/basket")).json()) as {
        basket: { items: { product: { id: string } }[] };
      };
      expect(basket.basket.items.map((item) => item.product.id)).toEqual(["12321341", "23445930"]);
      expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);
    } finally {
      await close();
    }
  });

  it("answers 503 with Retry-After within seconds when the link goes silent, and recovers when it speaks again", async () => {
    const { proxy, database, close } = await openThroughProxy("silent", 2);
    try {
      const { app } = await createTestShop(database);
      const browser = createBrowser(app);
      expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);

      proxy.freeze();
      // Reads and changes on pooled connections, then on fresh ones: each answered within the bound.
      const attempts = [
        () => browser.get("/basket"),
        () => browser.postJson("/basket/add", { productId: "23445930" }),
        () => browser.get("/basket"),
        () => browser.postJson("/basket/add", { productId: "23445930" }),
      ];
      for (const attempt of attempts) {
        const startedAt = performance.now();
        const response = await answeredWithin(SILENT_LINK_BOUND_MS, attempt());
        expect(performance.now() - startedAt).toBeLessThan(SILENT_LINK_BOUND_MS);
        await expectTryAgain(response);
      }
      expect((await answeredWithin(SILENT_LINK_BOUND_MS, browser.get("/healthz"))).status).toBe(503);

      proxy.thaw();
      await expect.poll(async () => (await browser.get("/healthz")).status, { timeout: 15_000 }).toBe(200);
      const basket = (await (await browser.get("/basket")).json()) as {
        basket: { items: { product: { id: string } }[] };
      };
      expect(basket.basket.items.map((item) => item.product.id)).toEqual(["12321341"]);

      // Silent in the middle of a transaction: its ROLLBACK, queued behind the unanswered statement, must not wait
      // out a second timeout before the caller hears of it.
      const startedAt = performance.now();
      const failure = await database.db
        .transaction()
        .execute(async (transaction) => {
          await sql`select 1`.execute(transaction);
          proxy.freeze();
          await sql`select 2`.execute(transaction);
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(performance.now() - startedAt).toBeLessThan(SILENT_LINK_BOUND_MS);
      expect(isDatabaseUnavailable(failure)).toBe(true);
    } finally {
      await close();
    }
  }, 60_000);

  it("drops a pooled connection found broken and sends a read once more on a fresh one; a write on it fails and is not sent again", async () => {
    const { proxy, schema, database, close } = await openThroughProxy("broken", 1);
    try {
      await sql`create table ${sql.id(schema, "writes")} (note text)`.execute(database.db);
      expect((await sql<{ answer: number }>`select 42 as answer`.execute(database.db)).rows).toEqual([{ answer: 42 }]);

      proxy.breakQuietly();
      // The pool's one connection is broken; the read is answered all the same, on a new connection.
      expect((await sql<{ answer: number }>`select 43 as answer`.execute(database.db)).rows).toEqual([{ answer: 43 }]);
      expect(database.poolStats?.().total).toBe(1);

      proxy.breakQuietly();
      const failure = await sql`insert into ${sql.id(schema, "writes")} values ('once')`.execute(database.db).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isDatabaseUnavailable(failure)).toBe(true);
      // The pool goes on with a fresh connection; the write was not sent again behind the caller's back.
      expect(
        (
          await sql<{ count: number }>`select count(*)::int as count from ${sql.id(schema, "writes")}`.execute(
            database.db,
          )
        ).rows,
      ).toEqual([{ count: 0 }]);

      proxy.breakQuietly();
      // Nor is anything inside a transaction: the caller hears of it and decides.
      const inTransaction = await database.db
        .transaction()
        .execute((transaction) => sql`select 44`.execute(transaction))
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(isDatabaseUnavailable(inTransaction)).toBe(true);
      expect((await sql<{ answer: number }>`select 45 as answer`.execute(database.db)).rows).toEqual([{ answer: 45 }]);
    } finally {
      await close();
    }
  });

  it("answers 503 with Retry-After, not 500, when PostgreSQL refuses the connection or nothing listens", async () => {
    const { schema, database, close } = await openThroughProxy("refused");
    const closedPort = await unusedPort();
    try {
      const { services } = await createTestShop(database);
      const refusals = {
        "no such database (3D000)": (address: URL) => (address.pathname = "/storefront_no_such_database"),
        "no such role (28000)": (address: URL) => (address.username = "storefront_no_such_role"),
        "nothing listening (ECONNREFUSED)": (address: URL) => (
          (address.hostname = "127.0.0.1"),
          (address.port = String(closedPort))
        ),
      };
      for (const [label, change] of Object.entries(refusals)) {
        const address = new URL(url ?? "");
        change(address);
        const unreachable = openDatabase({ kind: "postgres", url: address.toString(), schema });
        try {
          // The same shop (its processor and settings), over a database that refuses every connection.
          const app = createApp({
            services: createServices(unreachable, createLogger("silent"), { provider: services.provider }),
            allowedHosts: ["shop.test"],
          });
          const browser = createBrowser(app);
          const response = await browser.postJson("/basket/add", { productId: "12321341" });
          expect(response.status, label).toBe(503);
          await expectTryAgain(response);
          expect((await browser.get("/healthz")).status, label).toBe(503);
        } finally {
          await unreachable.close();
        }
      }
    } finally {
      await close();
    }
  });

  it("answers POST /payments/create 503 with Retry-After, and logs it, when the database goes during the payment's own work", async () => {
    const { proxy, database, close } = await openThroughProxy("payment-outage");
    const dataDir = mkdtempSync(join(tmpdir(), "storefront-processor-"));
    const processorPort = await unusedPort();
    const processor = await startProcessorProcess(processorPort, "http://127.0.0.1:9/webhooks/stripe", dataDir);
    // Between the shop and its processor: the moment the processor has made the intent, the database goes, so the
    // shop's next statement (writing the payment down) is the one that fails.
    const between = createHttpServer((request, response) => {
      const forwarded = httpRequest(
        { host: "127.0.0.1", port: processorPort, path: request.url, method: request.method, headers: request.headers },
        async (answer) => {
          if (request.method === "POST" && request.url === "/v1/payment_intents") await proxy.cut();
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      request.pipe(forwarded);
    });
    await new Promise<void>((resolve) => between.listen(0, "127.0.0.1", resolve));
    const lines: string[] = [];
    try {
      const { app } = await createTestShop(database, {
        stripe: SEPARATE_PROCESSOR_KEYS,
        processorUrl: `http://127.0.0.1:${(between.address() as AddressInfo).port}`,
        logger: createLogger("info", { write: (line: string) => void lines.push(line) }),
      });
      const browser = createBrowser(app);
      expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);
      await addDeliveryAddress(browser);
      const basket = (await (await browser.get("/basket")).json()) as { basket: { subtotalCents: number } };
      const response = await browser.send(`/payments/create?total=${basket.basket.subtotalCents}`, { method: "POST" });
      await expectTryAgain(response);
      expect(lines.some((line) => /"level":40/.test(line) && line.includes("database unavailable"))).toBe(true);
    } finally {
      await new Promise((resolve) => between.close(resolve));
      await stopProcessorProcess(processor);
      rmSync(dataDir, { recursive: true, force: true });
      await close();
    }
  }, 180_000);
});

/** Requests on a silent link must be answered within this: connect (3 s) or a query's read timeout (6 s), and margin. */
const SILENT_LINK_BOUND_MS = 8_000;

/** The response, or a failure naming the bound if none came in time (without the bound the test would just hang). */
async function answeredWithin(milliseconds: number, response: Promise<Response>): Promise<Response> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${milliseconds} ms`)), milliseconds);
  });
  try {
    return await Promise.race([response, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A local port nothing listens on: taken from the system, then released. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
