import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, killShop, startShopProcess, type ShopProcess } from "../../tests/e2e/support/shop-process";
import { publishableKeyOf } from "#server/testing/shop-traffic";
import { TEST_DELIVERY_ADDRESS } from "#server/testing/test-app";
import { testSchemaName } from "#server/testing/test-database";

/**
 * Three production instances behind HAProxy (deploy/haproxy.cfg, as shipped) on one PostgreSQL schema: shoppers
 * browse, change baskets and pay through the balancer while every instance in turn is stopped (SIGTERM), started
 * again and found ready. Not one request may fail, and every payment that succeeded has exactly one order.
 */
const url = process.env.TEST_DATABASE_URL;
const hasHaproxy = spawnSync("haproxy", ["-v"], { stdio: "ignore" }).status === 0;
const root = path.join(import.meta.dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "storefront-balancer-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SHOPPERS = 6;
const PRODUCTS = ["12321341", "49538094"];
const TEST_CARD = {
  "payment_method_data[type]": "card",
  "payment_method_data[card][number]": "4242424242424242",
  "payment_method_data[card][exp_month]": "12",
  "payment_method_data[card][exp_year]": "2034",
  "payment_method_data[card][cvc]": "123",
};

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

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const isReady = (origin: string) => fetch(`${origin}/readyz`).then((response) => response.status === 200);

describe.skipIf(!url || !hasHaproxy)("three instances behind HAProxy", () => {
  it("shoppers see no failed request while every instance is restarted in turn, and every paid order is recorded once", async () => {
    const schema = testSchemaName("balancer");
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const databaseUrl = `${url}${url!.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema},public`)}`;
    const env = {
      DATABASE_URL: databaseUrl,
      TRUST_PROXY: "1",
      SHUTDOWN_DELAY_MS: "3000",
      NEW_SESSIONS_PER_IP: "1000000",
      PAYMENT_ATTEMPTS_PER_IP: "1000000",
      AUTH_ATTEMPTS_PER_IP: "100000",
    };
    const ports = await Promise.all([0, 1, 2].map(() => freePort()));
    // Started together on the empty schema: one migrates and seeds, the others wait for it.
    const instances: ShopProcess[] = await Promise.all(ports.map((port) => startShopProcess(env, port)));
    const balancerPort = await freePort();
    const configPath = path.join(scratch, "haproxy.cfg");
    writeFileSync(configPath, balancerConfig(balancerPort, ports));
    let balancerLog = "";
    const balancer: ChildProcess = spawn("haproxy", ["-db", "-f", configPath], { stdio: ["ignore", "pipe", "pipe"] });
    balancer.stdout?.on("data", (chunk: Buffer) => (balancerLog += chunk.toString()));
    balancer.stderr?.on("data", (chunk: Buffer) => (balancerLog += chunk.toString()));
    const origin = `http://127.0.0.1:${balancerPort}`;

    const failures: string[] = [];
    const paidIntents: string[] = [];
    const counts = { pages: 0, basket: 0, checkouts: 0 };
    let running = true;
    let passed = false;
    try {
      await waitFor("the balancer to answer", () => isReady(origin));
      expect((await fetch(`${origin}/metrics`)).status).toBe(404);
      const publishableKey = await publishableKeyOf(origin);

      const call = async (what: string, input: string, init: RequestInit, expected: number) => {
        try {
          const response = await fetch(`${origin}${input}`, {
            ...init,
            redirect: "manual",
            signal: AbortSignal.timeout(15_000),
          });
          const text = await response.text();
          if (response.status !== expected) failures.push(`${what}: HTTP ${response.status} ${text.slice(0, 200)}`);
          return { response, text, ok: response.status === expected };
        } catch (error) {
          failures.push(`${what}: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`);
          return { response: undefined, text: "", ok: false };
        }
      };
      const json = { "content-type": "application/json", accept: "application/json" };

      const shopper = async (index: number) => {
        let round = 0;
        while (running) {
          round += 1;
          const page = round % 2 === 0 ? "/" : "/products/the-lean-startup";
          if ((await call(`GET ${page}`, page, { headers: { accept: "text/html" } }, 200)).ok) counts.pages += 1;
          const added = await call(
            "POST /basket/add",
            "/basket/add",
            { method: "POST", headers: json, body: JSON.stringify({ productId: PRODUCTS[index % 2] }) },
            201,
          );
          if (!added.ok) continue;
          counts.basket += 1;
          const cookie = added.response!.headers.getSetCookie()[0]!.split(";")[0]!;
          const basket = JSON.parse(added.text) as { basket: { subtotalCents: number } };
          if (round % 3 !== 0) {
            if (
              (
                await call(
                  "POST /basket/remove",
                  "/basket/remove",
                  {
                    method: "POST",
                    headers: { ...json, cookie },
                    body: JSON.stringify({ productId: PRODUCTS[index % 2] }),
                  },
                  200,
                )
              ).ok
            )
              counts.basket += 1;
            continue;
          }
          const address = await call(
            "POST /checkout/address",
            "/checkout/address",
            { method: "POST", headers: { ...json, cookie }, body: JSON.stringify(TEST_DELIVERY_ADDRESS) },
            200,
          );
          if (!address.ok) continue;
          const created = await call(
            "POST /payments/create",
            `/payments/create?total=${basket.basket.subtotalCents}`,
            { method: "POST", headers: { accept: "application/json", cookie } },
            201,
          );
          if (!created.ok) continue;
          const clientSecret = (JSON.parse(created.text) as { clientSecret: string }).clientSecret;
          const intentId = clientSecret.split("_secret_")[0]!;
          const confirmed = await call(
            "POST /_processor/…/confirm",
            `/_processor/v1/payment_intents/${intentId}/confirm`,
            {
              method: "POST",
              headers: {
                authorization: `Bearer ${publishableKey}`,
                "content-type": "application/x-www-form-urlencoded",
              },
              body: new URLSearchParams({
                client_secret: clientSecret,
                use_stripe_sdk: "true",
                ...TEST_CARD,
              }).toString(),
            },
            200,
          );
          if (!confirmed.ok) continue;
          paidIntents.push(intentId);
          if (
            (
              await call(
                "POST /orders/record",
                "/orders/record",
                { method: "POST", headers: { ...json, cookie }, body: JSON.stringify({ paymentIntentId: intentId }) },
                201,
              )
            ).ok
          )
            counts.checkouts += 1;
        }
      };
      const load = Promise.all(Array.from({ length: SHOPPERS }, (_, index) => shopper(index)));

      await new Promise((resolve) => setTimeout(resolve, 2_000));
      for (const [index, port] of ports.entries()) {
        await killShop(instances[index]!, "SIGTERM");
        expect(instances[index]!.child.exitCode).toBe(0);
        instances[index] = await startShopProcess(env, port);
        await waitFor(`instance ${index + 1} to be ready`, () => isReady(`http://127.0.0.1:${port}`));
        // The balancer takes it back after two good checks a second apart.
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      }
      running = false;
      await load;

      expect(failures, failures.slice(0, 10).join("\n")).toEqual([]);
      expect(counts.checkouts).toBeGreaterThan(10);
      // Every payment that succeeded has its order, once: recorded by the page, or by the webhook whoever delivers it.
      await waitFor("every paid order to be recorded", async () => {
        const { rows } = await admin.query<{ count: number }>(
          `select count(*)::int as count from ${schema}.orders where id = any($1)`,
          [paidIntents],
        );
        return rows[0]!.count === paidIntents.length;
      });
      const { rows: orders } = await admin.query<{ count: number; distinct_count: number }>(
        `select count(*)::int as count, count(distinct id)::int as distinct_count from ${schema}.orders`,
      );
      expect(orders[0]).toEqual({ count: paidIntents.length, distinct_count: paidIntents.length });
      const { rows: succeeded } = await admin.query<{ count: number }>(
        `select count(*)::int as count from ${schema}.processor_payment_intents where status = 'succeeded'`,
      );
      expect(succeeded[0]!.count).toBe(paidIntents.length);
      passed = true;
      console.info(
        `through HAProxy while restarting 3 instances: ${counts.pages} pages, ${counts.basket} basket changes, ${counts.checkouts} checkouts, 0 failed`,
      );
    } finally {
      running = false;
      balancer.kill("SIGTERM");
      await Promise.all(instances.map((instance) => killShop(instance, "SIGTERM")));
      await admin.end();
      if (!passed) console.error(`HAProxy's log:\n${balancerLog.slice(-4_000)}`);
    }
  }, 180_000);
});
