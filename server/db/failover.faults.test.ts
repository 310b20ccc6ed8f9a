import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { freePort, killShop, startShopProcess, type ShopProcess } from "../../tests/e2e/support/shop-process";
import { startPatroniCluster, type ClusterPorts } from "#server/testing/patroni-cluster";
import {
  SEPARATE_PROCESSOR_KEYS,
  startProcessorProcess,
  stopProcessorProcess,
} from "#server/testing/processor-process";
import { createShopper, newTrafficLog, waitFor } from "#server/testing/shop-traffic";
import {
  ensureDebianPackages,
  serviceDirectory,
  startService,
  stopService,
  type ServiceProcess,
} from "#server/testing/system-services";

/**
 * The primary's machine dies under load. Two PostgreSQL 15 nodes under Patroni with etcd (deploy/patroni/, as
 * shipped), HAProxy sending the shop's connections to the primary; two shop instances behind the shop's own HAProxy
 * (deploy/haproxy.cfg); the built-in processor run as its own process on its own database (PGlite), the
 * independent record of what was paid. Shoppers browse, change baskets and pay; then the primary's Patroni and
 * PostgreSQL are killed with SIGKILL, as a machine failure takes them, and the standby is promoted once the leader
 * key expires. While there is no primary every answer is a page or a 503 with Retry-After, never a 500 nor a hang;
 * within 30 s of the promotion both instances serve and take payments again without a restart; every payment the
 * processor says succeeded is one order with one confirmation e-mail; every basket saved before the kill is there.
 */
const hasPackages = ensureDebianPackages({
  patroni: "patroni",
  etcd: "etcd-server",
  "/usr/lib/postgresql/15/bin/postgres": "postgresql-15",
  haproxy: "haproxy",
});
if (!hasPackages)
  console.warn(
    "failover.faults.test.ts: skipped: Debian's patroni, etcd-server, postgresql-15 and haproxy are not installed and could not be",
  );

const root = path.join(import.meta.dirname, "../..");
/** The ports given to the database stories (PgBouncer's story takes 5440). */
const PORTS: ClusterPorts = {
  postgres: [5441, 5442],
  rest: [5443, 5444],
  primary: 5445,
  etcdClient: 5446,
  etcdPeer: 5447,
};
const SHOPPERS = 6;
/** Shoppers who only keep changing their baskets, each up to the kill: what they saved must all be there after. */
const KEEPERS = 4;
const PRODUCTS = ["12321341", "49538094", "23445930", "4903850"];
/** The shop's statement timeout (server/db/client.ts): no request may wait on the database longer, plus a margin. */
const LONGEST_ANSWER_MS = 6_000;
const RECOVERY_BOUND_MS = 30_000;

/** deploy/haproxy.cfg with its listening port and its server lines replaced by these instances. */
function balancerConfig(port: number, instancePorts: number[]): string {
  const shipped = readFileSync(path.join(root, "deploy/haproxy.cfg"), "utf8");
  const servers = [
    ...instancePorts.map((instancePort, index) => `    server shop${index + 1} 127.0.0.1:${instancePort} check`),
    ...instancePorts.map(
      (instancePort, index) => `    server shop${index + 1}-unready 127.0.0.1:${instancePort} backup`,
    ),
  ].join("\n");
  const config = shipped
    .replace(/bind :8080/, `bind 127.0.0.1:${port}`)
    .replace(/(# instances:begin[^\n]*\n)[\s\S]*?(\s*# instances:end)/, `$1${servers}$2`);
  if (config === shipped || !config.includes(`127.0.0.1:${instancePorts[0]}`))
    throw new Error("deploy/haproxy.cfg no longer has the expected shape");
  return config;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const seconds = (milliseconds: number) => (milliseconds / 1000).toFixed(1);

describe.skipIf(!hasPackages)("a PostgreSQL failover under Patroni", () => {
  it("answers 503 with Retry-After while there is no primary, serves and takes payments within 30 s of the promotion, and loses no paid order nor saved basket", async () => {
    const directory = serviceDirectory("storefront-failover-");
    const cluster = await startPatroniCluster(directory, PORTS);
    let instances: ShopProcess[] = [];
    let balancer: ServiceProcess | undefined;
    let processor: ChildProcess | undefined;
    let passed = false;
    const log = newTrafficLog();
    let running = true;
    let killedAt = 0;
    try {
      await waitFor("a primary with a synchronous standby", () => cluster.isReplicatingSynchronously(), 120_000);
      const databaseUrl = `postgres://postgres@127.0.0.1:${PORTS.primary}/postgres`;

      const [processorPort, balancerPort, ...instancePorts] = await Promise.all([0, 1, 2, 3].map(() => freePort()));
      const origin = `http://127.0.0.1:${balancerPort}`;
      const processorUrl = `http://127.0.0.1:${processorPort}`;
      processor = await startProcessorProcess(
        processorPort!,
        `${origin}/webhooks/stripe`,
        path.join(directory, "processor"),
      );
      const env = {
        DATABASE_URL: databaseUrl,
        PROCESSOR_URL: processorUrl,
        STRIPE_SECRET_KEY: SEPARATE_PROCESSOR_KEYS.secretKey,
        STRIPE_PUBLISHABLE_KEY: SEPARATE_PROCESSOR_KEYS.publishableKey,
        STRIPE_WEBHOOK_SECRET: SEPARATE_PROCESSOR_KEYS.webhookSecret,
        TRUST_PROXY: "1",
        SHUTDOWN_DELAY_MS: "3000",
        NEW_SESSIONS_PER_IP: "1000000",
        PAYMENT_ATTEMPTS_PER_IP: "1000000",
        AUTH_ATTEMPTS_PER_IP: "100000",
      };
      // Started together; any that did start is stopped at the end even if another did not.
      const started = await Promise.allSettled(instancePorts.map((port) => startShopProcess(env, port)));
      instances = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      const notStarted = started.find((result) => result.status === "rejected");
      if (notStarted) throw notStarted.reason;
      const balancerFile = path.join(directory, "haproxy-shop.cfg");
      writeFileSync(balancerFile, balancerConfig(balancerPort!, instancePorts));
      // Run from its own directory: it runs as the postgres user, who may not enter the checkout's.
      balancer = startService("haproxy", ["-db", "-f", balancerFile], { cwd: directory });
      await waitFor("the balancer to answer", async () => (await fetch(`${origin}/readyz`)).status === 200);

      // While there is no primary a 503 is the expected answer, and it must say when to try again.
      const tolerated = (status: number, response: Response) =>
        (status === 503 && response.headers.get("retry-after") !== null) ||
        // The processor (its own process, not failing over) slow to answer on a loaded machine: the shopper is told to
        // try again, and asks again. Preparing a payment whose database went is a 503 like any other route's.
        (status === 502 && response.url.endsWith("/orders/record"));
      const paid: string[] = [];
      const unrecorded: string[] = [];

      const buyer = async (index: number) => {
        let shopper = createShopper({ origin: () => origin, log, tolerated });
        for (let round = 0; running; round += 1) {
          await shopper.page(round % 2 === 0 ? "/" : "/products/the-lean-startup");
          const added = await shopper.add(PRODUCTS[index % PRODUCTS.length]!);
          if (!added.ok) {
            await sleep(500);
            continue;
          }
          if (round % 3 !== 2) {
            await shopper.setQuantity(PRODUCTS[index % PRODUCTS.length]!, 2);
            continue;
          }
          const { intentId, recorded } = await shopper.pay(SEPARATE_PROCESSOR_KEYS.publishableKey, {
            processor: () => processorUrl,
            keepRecordingForMs: 60_000,
          });
          if (intentId) paid.push(intentId);
          if (intentId && !recorded) unrecorded.push(intentId);
          // The next payment is another shopper's: one session paying every few seconds would reach the payment
          // limit of a session (30 in ten minutes) on a fast machine, and be refused as card testing.
          shopper = createShopper({ origin: () => origin, log, tolerated });
        }
      };

      // Each keeper changes one line's quantity, one step at a time, until a change goes unanswered or is refused;
      // then it stops. Its basket must end as its last acknowledged change left it, or as the change it was making.
      const keepers = Array.from({ length: KEEPERS }, () => ({
        shopper: createShopper({ origin: () => origin, log, tolerated }),
        acknowledged: [] as { id: string; quantity: number }[],
        attempted: null as { id: string; quantity: number }[] | null,
        changes: 0,
      }));
      const keep = async (keeper: (typeof keepers)[number], index: number) => {
        const productId = PRODUCTS[index % PRODUCTS.length]!;
        const first = await keeper.shopper.add(productId);
        if (!first.ok) {
          log.failures.push(`keeper ${index + 1} could not start a basket`);
          return;
        }
        keeper.acknowledged = [{ id: productId, quantity: 1 }];
        for (let step = 0; running && (killedAt === 0 || Date.now() < killedAt + 2_000); step += 1) {
          const quantity = (step % 10) + 1;
          const next = [{ id: productId, quantity }];
          const changed = await keeper.shopper.setQuantity(productId, quantity);
          if (!changed.ok) {
            keeper.attempted = next;
            return;
          }
          keeper.acknowledged = next;
          keeper.changes += 1;
          await sleep(50);
        }
      };

      const load = Promise.all([
        ...Array.from({ length: SHOPPERS }, (_, index) => buyer(index)),
        ...keepers.map((keeper, index) => keep(keeper, index)),
      ]);

      // Each instance's readiness, asked directly four times a second.
      const readiness: { at: number; instance: number; ready: boolean; milliseconds: number }[] = [];
      const watchReadiness = (async () => {
        while (running) {
          await Promise.all(
            instances.map(async (instance, index) => {
              const started = performance.now();
              const ready = await fetch(`${instance.origin}/readyz`, { signal: AbortSignal.timeout(10_000) }).then(
                (response) => response.status === 200,
                () => false,
              );
              readiness.push({ at: Date.now(), instance: index, ready, milliseconds: performance.now() - started });
            }),
          );
          await sleep(250);
        }
      })();

      // Under way: some orders paid and recorded, and a few seconds more of shopping.
      await waitFor("the first checkouts", async () => paid.length >= 3, 60_000);
      await sleep(2_000);
      const checkoutsBefore = paid.length;
      expect(checkoutsBefore, "checkouts before the failure").toBeGreaterThan(0);
      const oldPrimary = await cluster.primary();
      expect(oldPrimary).not.toBeNull();
      killedAt = Date.now();
      cluster.killNode(oldPrimary!);

      // Patroni promotes the standby once the dead leader's key expires.
      await waitFor("the standby's promotion", async () => (await cluster.primary()) === 1 - oldPrimary!, 60_000);
      const promotedAt = Date.now();

      // Within 30 s of the promotion, every instance, asked directly, is ready and takes a payment.
      const recoveredAt: number[] = [];
      await Promise.all(
        instances.map(async (instance, index) => {
          const shopper = createShopper({ origin: () => instance.origin, log: newTrafficLog() });
          for (;;) {
            if (Date.now() - promotedAt > RECOVERY_BOUND_MS)
              throw new Error(`instance ${index + 1} did not take a payment within 30 s of the promotion`);
            const ready = await fetch(`${instance.origin}/readyz`).then(
              (response) => response.status === 200,
              () => false,
            );
            const added = ready && (await shopper.add(PRODUCTS[0]!)).ok;
            const { intentId, recorded } = added
              ? await shopper.pay(SEPARATE_PROCESSOR_KEYS.publishableKey, { processor: () => processorUrl })
              : { intentId: null, recorded: false };
            if (intentId) paid.push(intentId);
            if (intentId && !recorded) unrecorded.push(intentId);
            if (recorded) {
              recoveredAt[index] = Date.now();
              return;
            }
            await sleep(500);
          }
        }),
      );
      // Shoppers go on a little after, through the balancer.
      await sleep(5_000);
      running = false;
      await Promise.all([load, watchReadiness]);

      // What the shoppers saw.
      const unexpected = log.failures;
      expect(unexpected, unexpected.slice(0, 10).join("\n")).toEqual([]);
      const serverErrors = [...log.statuses].filter(
        ([status]) => status.startsWith("5") && status !== "503" && status !== "502",
      );
      expect(serverErrors, "no 5xx but 503").toEqual([]);
      expect(log.calls.filter((call) => call.status === "503" && call.retryAfter === null)).toEqual([]);
      const slowest = Math.max(...log.calls.map((call) => call.milliseconds));
      expect(slowest, "the longest answer through the balancer").toBeLessThan(LONGEST_ANSWER_MS);
      const slowestReadiness = Math.max(...readiness.map((check) => check.milliseconds));
      expect(slowestReadiness, "the longest /readyz").toBeLessThan(LONGEST_ANSWER_MS);
      // Each instance said it was not ready while there was no primary.
      for (const index of instances.keys()) {
        expect(
          readiness.some(
            (check) => check.instance === index && !check.ready && check.at > killedAt && check.at < promotedAt,
          ),
          `instance ${index + 1} not ready`,
        ).toBe(true);
      }
      expect(recoveredAt.every((at) => at - promotedAt <= RECOVERY_BOUND_MS)).toBe(true);
      expect(unrecorded, "paid, and still not recorded after a minute of asking").toEqual([]);

      // The processor's own record of what was paid, read from its database once it has stopped.
      await stopProcessorProcess(processor);
      processor = undefined;
      const processorDb = new PGlite(path.join(directory, "processor"));
      const { rows: succeeded } = await processorDb.query<{ id: string }>(
        "select id from processor_payment_intents where status = 'succeeded'",
      );
      await processorDb.close();
      expect(succeeded.map((intent) => intent.id).sort()).toEqual([...paid].sort());

      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      try {
        const { rows: orders } = await admin.query<{ id: string }>("select id from orders");
        expect(orders.map((order) => order.id).sort(), "one order per succeeded payment").toEqual(
          succeeded.map((intent) => intent.id).sort(),
        );
        const { rows: emails } = await admin.query<{ dedupe_key: string }>(
          "select dedupe_key from email_outbox where kind = 'order-confirmation'",
        );
        expect(emails.map((email) => email.dedupe_key).sort(), "one confirmation e-mail per order").toEqual(
          orders.map((order) => `order-confirmation:${order.id}`).sort(),
        );
      } finally {
        await admin.end();
      }
      for (const [index, keeper] of keepers.entries()) {
        const basket = await keeper.shopper.basket();
        const kept = basket?.items.map((item) => ({ id: item.product.id, quantity: item.quantity }));
        const allowed = [keeper.acknowledged, ...(keeper.attempted ? [keeper.attempted] : [])];
        expect(allowed, `keeper ${index + 1}'s basket after ${keeper.changes} acknowledged changes`).toContainEqual(
          kept,
        );
      }
      passed = true;

      const failuresByStatus = [...log.statuses]
        .filter(([status]) => !status.startsWith("2") && !status.startsWith("3"))
        .map(([status, count]) => `${count} × ${status}`);
      const unavailable = log.calls.filter((call) => call.status === "503").map((call) => call.at + call.milliseconds);
      const requests = [...log.statuses.values()].reduce((sum, count) => sum + count, 0);
      console.info(
        [
          `failover under Patroni (deploy/patroni, ttl 15 s): ${requests} requests through the balancer, failures by status: ${failuresByStatus.join(", ") || "none"}; ${log.clientRetries} GETs sent again after the balancer closed their connection`,
          `standby promoted ${seconds(promotedAt - killedAt)} s after the primary's machine was killed; 503s from ${unavailable.length ? seconds(Math.min(...unavailable) - killedAt) : "-"} s to ${unavailable.length ? seconds(Math.max(...unavailable) - killedAt) : "-"} s after the kill (seconds without service: ${unavailable.length ? seconds(Math.max(...unavailable) - Math.min(...unavailable)) : "0"})`,
          `each instance took a payment ${recoveredAt.map((at) => `${seconds(at - promotedAt)} s`).join(" and ")} after the promotion; the longest answer ${seconds(slowest)} s`,
          `orders checked against the processor: ${succeeded.length} paid (${checkoutsBefore} before the failure), ${succeeded.length} orders, each with one confirmation e-mail; ${KEEPERS} baskets kept (${keepers.map((keeper) => keeper.changes).join(", ")} acknowledged changes)`,
        ].join("\n"),
      );
    } finally {
      running = false;
      await Promise.all(instances.map((instance) => killShop(instance, "SIGTERM")));
      await stopProcessorProcess(processor);
      await stopService(balancer);
      if (!passed) {
        console.error(`failures seen by the shoppers:\n${log.failures.slice(0, 30).join("\n")}`);
        console.error(
          `killed at ${new Date(killedAt).toISOString()}; HAProxy (shop):\n${balancer?.log().slice(-3_000)}`,
        );
        console.error(
          `Patroni:\n${cluster.nodes.map((node) => node?.log().slice(-3_000)).join("\n---\n")}\nHAProxy (PostgreSQL):\n${cluster.haproxy.log().slice(-2_000)}`,
        );
        const notable = (text: string) =>
          text
            .split("\n")
            .filter((line) => !line.includes('"path":"/readyz"'))
            .join("\n")
            .slice(-6_000);
        console.error(`shops:\n${instances.map((instance) => notable(instance.log())).join("\n---\n")}`);
      }
      await cluster.stop();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 300_000);
});
