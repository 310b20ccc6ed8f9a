import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { freePort, killShop, startShopProcess, type ShopProcess } from "../tests/e2e/support/shop-process";
import { sourceNewerThanBuild } from "../scripts/build-freshness.js";
import { LOCK_FILE_NAME } from "./data-dir-lock";

/**
 * The production process as an operator starts it (`node scripts/start.js`, `npm start`), on the current build:
 * what it refuses, the one line it prints when it does, and how it stops.
 */
const root = join(import.meta.dirname, "..");
const scratch = mkdtempSync(join(tmpdir(), "storefront-startup-"));

beforeAll(() => {
  // Every process below must run the same, current build, not race to rebuild it.
  if (!existsSync(join(root, "build/server/index.js")) || sourceNewerThanBuild(root)) {
    const build = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" });
    if (build.status !== 0) throw new Error("npm run build failed");
  }
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `node scripts/start.js` until it exits (or 30 s, after which it is killed: it did not refuse). */
async function runUntilExit(env: Record<string, string>, executable = process.execPath) {
  const child = spawn(executable, ["scripts/start.js"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      ALLOW_TEST_PAYMENTS: "",
      DATABASE_URL: "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  return { code, lines: output.trim().split("\n") };
}

const dataDir = (name: string) => join(scratch, name);

/** After a test, whatever it did: a shop killed by a signal has no exit code, and killShop would wait for it forever. */
async function stopIfRunning(shop: ShopProcess) {
  if (shop.child.exitCode === null && shop.child.signalCode === null) await killShop(shop);
}

describe("one process per DATA_DIR", () => {
  it("a second process stops with one line naming the directory; the lock goes with a clean stop and is taken over after a crash", async () => {
    const directory = dataDir("shared");
    const first = await startShopProcess({ DATA_DIR: directory }, await freePort());
    onTestFinished(() => stopIfRunning(first));
    const second = await runUntilExit({ DATA_DIR: directory, PORT: String(await freePort()) });
    expect(second.code).toBe(1);
    expect(second.lines).toEqual([
      `DATA_DIR ${directory} is in use by another Storefront process (pid ${first.child.pid}): stop it, or give this one its own DATA_DIR (or a DATABASE_URL)`,
    ]);
    expect((await fetch(`${first.origin}/healthz`)).status).toBe(200);

    // SIGKILL leaves the lock behind; its pid no longer runs, so the next start takes it over.
    await killShop(first, "SIGKILL");
    expect(existsSync(join(directory, LOCK_FILE_NAME))).toBe(true);
    const restarted = await startShopProcess({ DATA_DIR: directory }, await freePort());
    onTestFinished(() => stopIfRunning(restarted));
    await killShop(restarted, "SIGTERM");
    expect(restarted.child.exitCode).toBe(0);
    expect(existsSync(join(directory, LOCK_FILE_NAME))).toBe(false);
  }, 120_000);
});

describe("npm start", () => {
  it("stops the server when npm gets SIGTERM (as from a process manager): the port is free once npm has exited", async () => {
    const port = await freePort();
    const npm = spawn("npm", ["start"], {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: "production",
        LOG_LEVEL: "warn",
        HOST: "127.0.0.1",
        PORT: String(port),
        DATA_DIR: dataDir("npm-start"),
        DATABASE_URL: "",
      },
      stdio: "ignore",
      // A process group of its own, so that whatever is left after the test can be cleaned up by its id.
      detached: true,
    });
    const npmExited = new Promise((resolve) => npm.once("exit", resolve));
    try {
      await expect
        .poll(
          () =>
            fetch(`http://127.0.0.1:${port}/healthz`).then(
              (response) => response.status,
              () => 0,
            ),
          { timeout: 60_000 },
        )
        .toBe(200);
      process.kill(npm.pid!, "SIGTERM");
      await npmExited;
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      try {
        process.kill(-npm.pid!, "SIGKILL");
      } catch {
        // already gone, as it should be
      }
    }
  }, 120_000);
});

describe("when npm start rebuilds", () => {
  it("a change to a workspace package the build bundles is newer than the build; a package's node_modules is not", () => {
    const shop = mkdtempSync(join(scratch, "freshness-"));
    const file = (relative: string, at: Date) => {
      mkdirSync(join(shop, relative, ".."), { recursive: true });
      writeFileSync(join(shop, relative), "");
      utimesSync(join(shop, relative), at, at);
    };
    const built = new Date("2026-01-02T00:00:00Z");
    const before = new Date("2026-01-01T00:00:00Z");
    const after = new Date("2026-01-03T00:00:00Z");
    file("build/server/index.js", built);
    file("packages/kysely-prepared/src/prepared-statement.ts", before);
    file("packages/kysely-prepared/node_modules/some-dependency/index.js", after);
    file("packages/kysely-prepared/src/prepared-statement.test.ts", after);
    expect(sourceNewerThanBuild(shop)).toBeNull();
    file("packages/kysely-prepared/src/prepared-statement.ts", after);
    expect(sourceNewerThanBuild(shop)).toBe(join("packages", "kysely-prepared", "src", "prepared-statement.ts"));
  });
});

describe("a start that cannot work stops with one line naming the variable", () => {
  it("PORT in use", async () => {
    const holder = createServer();
    const port = await new Promise<number>((resolve) =>
      holder.listen(0, "127.0.0.1", () => resolve((holder.address() as { port: number }).port)),
    );
    try {
      const result = await runUntilExit({ PORT: String(port), DATA_DIR: dataDir("port-in-use") });
      expect(result.code).toBe(1);
      expect(result.lines).toEqual([
        `PORT ${port} is already in use on HOST 127.0.0.1: stop what holds it, or set another PORT`,
      ]);
    } finally {
      holder.close();
    }
  }, 60_000);

  it("a HOST that is not this machine's", async () => {
    const result = await runUntilExit({
      HOST: "nope.invalid",
      PORT: String(await freePort()),
      DATA_DIR: dataDir("bad-host"),
    });
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(/^HOST nope\.invalid is not an address of this machine \(E[A-Z_]+\)/),
    ]);
  }, 60_000);

  it("a DATA_DIR that cannot be created (it hung with no output) or written", async () => {
    const uncreatable = await runUntilExit({ DATA_DIR: "/proc/nope" });
    expect(uncreatable.code).toBe(1);
    expect(uncreatable.lines).toEqual(["DATA_DIR /proc/nope cannot be written (ENOENT): give a writable directory"]);
    // /sys refuses new files even to root, for whom a chmod'ed directory would still be writable.
    const readOnly = await runUntilExit({ DATA_DIR: "/sys" });
    expect(readOnly.code).toBe(1);
    expect(readOnly.lines).toEqual([expect.stringMatching(/^DATA_DIR \/sys cannot be written \(E(ACCES|PERM|ROFS)\)/)]);
  }, 90_000);

  it("DATABASE_URL without Stripe keys, unless test payments are allowed", async () => {
    const result = await runUntilExit({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^Invalid configuration: ALLOW_TEST_PAYMENTS: DATABASE_URL is set but no Stripe keys are: .*ALLOW_TEST_PAYMENTS=true/,
      ),
    ]);
  });

  // What a machine's own older Node does with each entry point started directly: one line naming npm's way instead.
  const olderNode = "/usr/bin/node";
  const olderVersion = existsSync(olderNode)
    ? spawnSync(olderNode, ["-p", "process.versions.node"]).stdout.toString().trim()
    : "";
  const scripts = Object.entries(
    (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
  ).flatMap(([name, command]) => {
    const entry = /^(?:exec )?node (scripts\/\S+\.js)$/.exec(command)?.[1];
    return entry ? [{ name, entry }] : [];
  });

  it("lists every entry point that needs Node 24", () => {
    expect(scripts.map(({ name }) => name).sort()).toEqual(
      ["bench", "demo-catalogue", "demo-pictures", "dev", "images", "processor", "start"].sort(),
    );
  });

  it.runIf(olderVersion !== "" && Number(olderVersion.split(".")[0]) < 24).each(scripts)(
    "a Node.js older than 24 running $entry directly",
    ({ name, entry }) => {
      const result = spawnSync(olderNode, [entry], { cwd: root, encoding: "utf8", timeout: 30_000 });
      const npmCommand = name === "start" ? "npm start" : `npm run ${name}`;
      expect(result.status).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr.trim().split("\n")).toEqual([
        `Storefront needs Node.js 24 or later; this is Node.js ${olderVersion}. ` +
          `Run \`${npmCommand}\` instead (after \`npm ci\`): npm scripts use the Node 24 that \`npm ci\` puts in node_modules/.bin.`,
      ]);
    },
  );
});

describe("the build npm start serves", () => {
  it("is rebuilt, saying so in one line, when a source is newer than it", async () => {
    const source = join(root, "shared/money.ts");
    const builtAt = statSync(join(root, "build/server/index.js")).mtime;
    // As after an edit or a checkout: the source is a second newer than the build.
    const editedAt = new Date(builtAt.getTime() + 1_000);
    utimesSync(source, editedAt, editedAt);
    const shop = await startShopProcess({ DATA_DIR: dataDir("rebuilt") }, await freePort());
    onTestFinished(() => stopIfRunning(shop));
    expect(shop.log()).toContain("The build is older than shared/money.ts: building the shop first (npm run build)...");
    expect(statSync(join(root, "build/server/index.js")).mtimeMs).toBeGreaterThan(editedAt.getTime());
  }, 120_000);
});

describe("the shop's own pictures", () => {
  it("are named by their bytes and cached a year, the pages name them so, and their former addresses lead to them", async () => {
    const shop = await startShopProcess({ DATA_DIR: dataDir("pictures") }, await freePort());
    onTestFinished(() => stopIfRunning(shop));
    const home = await (await fetch(`${shop.origin}/`)).text();
    const named = /\/assets\/12321341-[\w-]{8}\.webp/;
    expect(home).toMatch(named);
    const picture = named.exec(home)![0];
    const served = await fetch(`${shop.origin}${picture}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
    expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(
      Buffer.from(await served.arrayBuffer()).equals(readFileSync(join(root, "images/products/12321341.webp"))),
    ).toBe(true);
    expect(home).toMatch(
      /srcSet="\/assets\/banner-1-750-[\w-]{8}\.webp 750w, \/assets\/banner-1-1500-[\w-]{8}\.webp 1500w"/,
    );

    const productPage = await (await fetch(`${shop.origin}/products/the-lean-startup`)).text();
    expect(productPage).toContain(`<meta property="og:image" content="${shop.origin}${picture}"/>`);
    expect(productPage).toContain(`"image":"${shop.origin}${picture}"`);

    // Its address before the build named it (browser caches, e-mails, orders paid before), and a name an earlier
    // build gave it (orders paid since).
    for (const former of ["/images/products/12321341.webp", "/assets/12321341-AbCd_-12.webp"]) {
      const moved = await fetch(`${shop.origin}${former}`, { redirect: "manual" });
      expect(moved.status, former).toBe(301);
      expect(moved.headers.get("location"), former).toBe(picture);
    }
    expect((await fetch(`${shop.origin}/assets/nothing-AbCd_-12.webp`, { redirect: "manual" })).status).toBe(404);
  }, 60_000);
});

describe("test mode", () => {
  it("is said at start when no Stripe keys are set", async () => {
    const shop = await startShopProcess({ DATA_DIR: dataDir("test-mode") }, await freePort());
    onTestFinished(() => stopIfRunning(shop));
    await killShop(shop, "SIGTERM");
    expect(shop.log()).toContain("Test mode: no real payments");
  }, 60_000);
});

describe("the ready line", () => {
  it("names the operator console and, while there is no operator account, how to make one", async () => {
    const directory = dataDir("ready-line");
    const readyLine = async (env: Record<string, string>) => {
      const port = await freePort();
      const shop = await startShopProcess({ DATA_DIR: directory, LOG_LEVEL: "info", ...env }, port);
      onTestFinished(() => stopIfRunning(shop));
      await killShop(shop, "SIGTERM");
      const line = shop
        .log()
        .split("\n")
        .find((entry) => entry.includes("Storefront is ready"));
      return { port, message: (JSON.parse(line ?? "{}") as { msg?: string }).msg };
    };

    const first = await readyLine({});
    expect(first.message).toBe(
      `Storefront is ready at http://localhost:${first.port}; the operator console is at http://localhost:${first.port}/admin, ` +
        "with no operator account yet: set OPERATOR_EMAIL and OPERATOR_PASSWORD (in .env or the environment) and start again",
    );
    const withOperator = await readyLine({
      OPERATOR_EMAIL: "owner@example.com",
      OPERATOR_PASSWORD: "harbour-lantern-quietly-87",
    });
    expect(withOperator.message).toBe(
      `Storefront is ready at http://localhost:${withOperator.port}; the operator console is at http://localhost:${withOperator.port}/admin`,
    );
  }, 120_000);
});
