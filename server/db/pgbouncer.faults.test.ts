import { rmSync } from "node:fs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { freePort, killShop, startShopProcess, type ShopProcess } from "../../tests/e2e/support/shop-process";
import { createShopper, newTrafficLog, publishableKeyOf } from "#server/testing/shop-traffic";
import { ensureDebianPackages, startPgBouncer, stopService } from "#server/testing/system-services";
import { testSchemaName } from "#server/testing/test-database";

/**
 * Two production instances reaching PostgreSQL only through PgBouncer in transaction mode (deploy/pgbouncer.ini, as
 * shipped), with fewer server connections than the instances' pools hold: consecutive statements of one pooled
 * connection land on different server connections, so anything that relied on a session (a session-level lock or
 * SET, a named prepared statement) would fail or act on the wrong connection. Started together on an empty schema
 * (start-up's lock through the pooler), then shoppers register, sign out and in again, change baskets and pay.
 */
const url = process.env.TEST_DATABASE_URL;
const hasPgBouncer = Boolean(url) && ensureDebianPackages({ pgbouncer: "pgbouncer" });
if (url && !hasPgBouncer)
  console.warn("pgbouncer.faults.test.ts: skipped: Debian's pgbouncer is not installed and could not be");

/** The ports given to the database stories: PgBouncer listens on the first. */
const PGBOUNCER_PORT = 5440;
const SERVER_CONNECTIONS = 3;
const SHOPPERS = 4;
const CHECKOUTS_EACH = 3;
const PRODUCTS = ["12321341", "49538094", "23445930"];
const PASSWORD = "violet tractor harbour pickle";

describe.skipIf(!hasPgBouncer)("the shop through PgBouncer in transaction mode", () => {
  it("starts, signs shoppers in, keeps their baskets and records every paid order once, on a few shared server connections", async () => {
    const schema = testSchemaName("pooled");
    const role = `${schema}_shop`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const target = new URL(url!);
    // What an operator does for a pooler (docs/scaling.md): the shop's role carries its settings, which a transaction
    // pooler cannot take as start-up parameters. Its own schema here; search_path as set on a real deployment's role.
    await admin.query(`create role ${role} login`);
    await admin.query(`create schema ${schema} authorization ${role}`);
    await admin.query(`alter role ${role} set search_path = ${schema}, public`);
    await admin.query(`alter role ${role} set statement_timeout = '5s'`);
    await admin.query(`alter role ${role} set jit = off`);
    const pooler = await startPgBouncer({
      port: PGBOUNCER_PORT,
      database: "shop",
      target: { host: target.hostname, port: Number(target.port || 5432), dbname: target.pathname.slice(1) },
      users: [role],
      poolSize: SERVER_CONNECTIONS,
    });
    const env = {
      DATABASE_URL: `postgres://${role}@127.0.0.1:${PGBOUNCER_PORT}/shop`,
      NEW_SESSIONS_PER_IP: "1000000",
      PAYMENT_ATTEMPTS_PER_IP: "1000000",
      AUTH_ATTEMPTS_PER_IP: "100000",
    };
    let instances: ShopProcess[] = [];
    let passed = false;
    try {
      const ports = await Promise.all([0, 1].map(() => freePort()));
      // Together on the empty schema: one migrates and seeds under the start-up lock, the other waits for it.
      // Started together; any that did start is stopped at the end even if another did not.
      const started = await Promise.allSettled(ports.map((port) => startShopProcess(env, port)));
      instances = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      const notStarted = started.find((result) => result.status === "rejected");
      if (notStarted) throw notStarted.reason;
      let turn = 0;
      const origin = () => instances[turn++ % instances.length]!.origin;
      const publishableKey = await publishableKeyOf(instances[0]!.origin);
      const log = newTrafficLog();
      const paid: string[] = [];
      const emails: string[] = [];
      const kept: { shopper: ReturnType<typeof createShopper>; items: { id: string; quantity: number }[] }[] = [];

      await Promise.all(
        Array.from({ length: SHOPPERS }, async (_, index) => {
          const shopper = createShopper({ origin, log });
          const email = `pooled-${index}-${crypto.randomUUID().slice(0, 8)}@example.com`;
          await shopper.page("/");
          await shopper.add(PRODUCTS[index % 3]!);
          // Register with a guest basket (it becomes the account's), sign out, sign in again: the basket is there.
          expect((await shopper.signIn("register", email, PASSWORD)).ok).toBe(true);
          emails.push(email);
          expect((await shopper.signOut()).ok).toBe(true);
          expect((await shopper.signIn("sign-in", email, PASSWORD)).ok).toBe(true);
          expect((await shopper.basket())?.items.map((item) => item.product.id)).toEqual([PRODUCTS[index % 3]]);
          for (let round = 0; round < CHECKOUTS_EACH; round += 1) {
            await shopper.page("/products/the-lean-startup");
            await shopper.add(PRODUCTS[(index + 1) % 3]!);
            await shopper.setQuantity(PRODUCTS[(index + 1) % 3]!, 2);
            const { intentId, recorded } = await shopper.pay(publishableKey);
            if (intentId) paid.push(intentId);
            expect(recorded).toBe(true);
          }
          // A basket left for later: still there on the next visit, whichever instance answers.
          await shopper.add(PRODUCTS[(index + 2) % 3]!);
          await shopper.setQuantity(PRODUCTS[(index + 2) % 3]!, 3);
          kept.push({ shopper, items: [{ id: PRODUCTS[(index + 2) % 3]!, quantity: 3 }] });
        }),
      );

      expect(log.failures, log.failures.slice(0, 10).join("\n")).toEqual([]);
      expect(paid).toHaveLength(SHOPPERS * CHECKOUTS_EACH);
      for (const { shopper, items } of kept) {
        expect(
          (await shopper.basket())?.items.map((item) => ({ id: item.product.id, quantity: item.quantity })),
        ).toEqual(items);
      }
      const { rows: orders } = await admin.query<{ id: string }>(`select id from ${schema}.orders`);
      expect(orders.map((order) => order.id).sort()).toEqual([...paid].sort());
      const { rows: succeeded } = await admin.query<{ id: string }>(
        `select id from ${schema}.processor_payment_intents where status = 'succeeded'`,
      );
      expect(succeeded.map((intent) => intent.id).sort()).toEqual([...paid].sort());
      const { rows: outbox } = await admin.query<{ kind: string; count: number }>(
        `select kind, count(*)::int as count from ${schema}.email_outbox group by kind order by kind`,
      );
      expect(outbox).toEqual([
        { kind: "order-confirmation", count: paid.length },
        { kind: "welcome", count: SHOPPERS },
      ]);
      // Twenty pooled connections in the two instances, served by the few the pooler holds on the server.
      const { rows: backends } = await admin.query<{ count: number }>(
        `select count(*)::int as count from pg_stat_activity where usename = $1`,
        [role],
      );
      expect(backends[0]!.count).toBeLessThanOrEqual(SERVER_CONNECTIONS);
      passed = true;
      const requests = [...log.statuses.values()].reduce((sum, count) => sum + count, 0);
      console.info(
        `through PgBouncer (transaction mode, ${SERVER_CONNECTIONS} server connections): ${requests} requests, ${SHOPPERS} accounts, ${paid.length} orders, 0 failed`,
      );
    } finally {
      await Promise.all(instances.map((instance) => killShop(instance, "SIGTERM")));
      if (!passed)
        console.error(
          `PgBouncer's log:\n${pooler.log().slice(-4_000)}\n${instances.map((instance) => instance.log().slice(-2_000)).join("\n")}`,
        );
      await stopService(pooler);
      rmSync(pooler.directory, { recursive: true, force: true });
      await admin.query(`drop schema ${schema} cascade`);
      await admin.query(`drop role ${role}`);
      await admin.end();
    }
  }, 180_000);
});
