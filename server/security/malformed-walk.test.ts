import { afterAll, beforeAll, expect, it } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { BOOK } from "./security-fixtures";
import { decodeHtmlEntities } from "#shared/html-entities";

/**
 * A walk over every route the shop has, with one fixed set of malformed requests, as a guest, a signed-in shopper
 * and an operator: every route module's action and loader (from the route table React Router holds, app/routes.ts)
 * and every Hono endpoint (from the app's own route list), so a new route is walked without a line of test. Each
 * answer must be below 500: a malformed request is the caller's mistake and gets a 4xx that says so.
 *
 * The set: JSON, text/plain, a repeated field, a NUL, a lone surrogate, a 100 kB field, and ids that are not ids,
 * both in the address (`/admin/products/a%00b`) and in each form the page shows (its intents, read from the page, with
 * every field set to a value that is no id, or to a NUL).
 */

const NOT_IDS = ["not-a-uuid", "a%00b", "00000000-0000-4000-8000-000000000000"];
const NUL = "a\u0000b";

type Browser = ReturnType<typeof createBrowser>;
interface Malformed {
  label: string;
  contentType?: string;
  body: string;
}

/** The bodies every action and endpoint is sent, whatever it expects. */
function malformedBodies(fieldNames: string[]): Malformed[] {
  const names = fieldNames.length > 0 ? fieldNames : ["intent", "id", "name"];
  const form = (pairs: [string, string][]) => new URLSearchParams(pairs).toString();
  return [
    {
      label: "JSON",
      contentType: "application/json",
      body: JSON.stringify(Object.fromEntries(names.map((name) => [name, 1]))),
    },
    { label: "text/plain", contentType: "text/plain", body: "intent=add&id=1" },
    {
      label: "repeated field",
      contentType: "application/x-www-form-urlencoded",
      body: form(names.flatMap((name) => [[name, "a"] as [string, string], [name, "b"] as [string, string]])),
    },
    {
      label: "NUL",
      contentType: "application/x-www-form-urlencoded",
      body: form(names.map((name) => [name, NUL])),
    },
    {
      label: "lone surrogate",
      contentType: "application/json",
      body: `{${names.map((name) => `${JSON.stringify(name)}:"\\ud800"`).join(",")}}`,
    },
    {
      label: "100 kB field",
      contentType: "application/x-www-form-urlencoded",
      body: form(names.map((name) => [name, "x".repeat(100_000)])),
    },
    {
      label: "ids that are not ids",
      contentType: "application/x-www-form-urlencoded",
      body: form(names.map((name) => [name, "not-a-uuid"])),
    },
    {
      label: "multipart with a file",
      contentType: "multipart/form-data; boundary=zz",
      body: `--zz\r\nContent-Disposition: form-data; name="${names[0]}"; filename="a.txt"\r\n\r\nhello\r\n--zz--\r\n`,
    },
  ];
}

/** The forms a page shows: each intent (a button's or a hidden field's value) with the form's field names. */
function formsOf(html: string): { intent: string | null; names: string[] }[] {
  const forms: { intent: string | null; names: string[] }[] = [];
  for (const [form] of html.matchAll(/<form[^>]*method="post"[^>]*>[\s\S]*?<\/form>/gi)) {
    const names = [...new Set([...form.matchAll(/\sname="([^"]+)"/g)].map((match) => decodeHtmlEntities(match[1]!)))];
    const intents = [...form.matchAll(/name="intent"[^>]*value="([^"]*)"|value="([^"]*)"[^>]*name="intent"/g)].map(
      (match) => decodeHtmlEntities(match[1] ?? match[2] ?? ""),
    );
    for (const intent of intents.length > 0 ? [...new Set(intents)] : [null]) forms.push({ intent, names });
  }
  return forms;
}

describeEachDatabase("a malformed request to any route", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  const EMAILS = { shopper: "walk-shopper@example.com", operator: "walk-owner@example.com" };
  const PASSWORD = "violet tractor harbour pickle";
  const who: Record<"guest" | "shopper" | "operator", Browser> = {} as never;
  const signedInCookie: Record<"shopper" | "operator", string | undefined> = {
    shopper: undefined,
    operator: undefined,
  };
  /** Addresses seen in the pages' links, for routes with a parameter (a real product, order, promotion). */
  const seen = new Set<string>();

  /** Signs the shopper or the operator in again when a form of the walk signed them out ("Sign out everywhere"). */
  async function signIn(name: "shopper" | "operator") {
    const browser = who[name];
    const isSignedIn = async () =>
      (await browser.send("/account", { headers: { accept: "text/html" } })).status === 200;
    if (!(await isSignedIn()))
      await browser.postForm(
        "/login",
        { intent: "sign-in", email: EMAILS[name], password: PASSWORD },
        { accept: "text/html" },
      );
    expect(await isSignedIn()).toBe(true);
    signedInCookie[name] = browser.cookie;
  }

  beforeAll(async () => {
    shop = await createPageShop(getDatabase(), { operator: { email: EMAILS.operator, password: PASSWORD } });
    who.guest = createBrowser(shop.app);
    who.shopper = createBrowser(shop.app);
    await who.shopper.postForm(
      "/login",
      { intent: "register", email: EMAILS.shopper, password: PASSWORD },
      { accept: "text/html" },
    );
    await who.shopper.postJson("/basket/add", { productId: BOOK });
    signedInCookie.shopper = who.shopper.cookie;
    who.operator = createBrowser(shop.app);
    await signIn("operator");
  }, 180_000);
  afterAll(() => shop.close());

  const failures: string[] = [];
  async function expectBelow500(browser: Browser, label: string, path: string, init: RequestInit = {}) {
    const response = await browser.send(path, init);
    await response.arrayBuffer();
    if (response.status >= 500) failures.push(`${response.status} ${label}: ${init.method ?? "GET"} ${path}`);
    return response;
  }
  const post = (browser: Browser, label: string, path: string, body: Malformed, method = "POST") =>
    expectBelow500(browser, `${label} (${body.label})`, path, {
      method,
      body: body.body,
      headers: { accept: "text/html", ...(body.contentType ? { "content-type": body.contentType } : {}) },
    });

  /** The route's path with each parameter set to `value` (a splat to a made-up address). */
  const concrete = (path: string, value: string) =>
    path.replace(/:[A-Za-z]+\??/g, value).replace(/\*$/, "no-such-page");
  const samplesFor = (path: string): string[] => {
    if (!/[:*]/.test(path)) return [path];
    const pattern = new RegExp(`^${path.replace(/:[A-Za-z]+\??/g, "[^/?#]+").replace(/\*$/, ".*")}$`);
    const real = [...seen].filter((address) => pattern.test(address)).slice(0, 1);
    return [...real, ...NOT_IDS.map((value) => concrete(path, value))];
  };

  it("every route module's loader and action answers malformed requests below 500, as anyone", async () => {
    failures.length = 0;
    const routes = shop.routeTable.filter((route) => route.hasLoader || route.hasAction);
    // Pages without parameters first: their links give the others real addresses to start from.
    routes.sort((a, b) => Number(/[:*]/.test(a.path)) - Number(/[:*]/.test(b.path)));
    for (const [name, browser] of Object.entries(who)) {
      for (const route of routes) {
        // The console is the operator's (to anybody else it is the 404 page); the shop's pages, a guest's and a
        // shopper's (an operator's are the same pages).
        if (route.path.startsWith("/admin") !== (name === "operator")) {
          if (name !== "operator") await expectBelow500(browser, name, concrete(route.path, "x"));
          continue;
        }
        const [first, ...others] = samplesFor(route.path);
        // The whole set at the route's first address (a real one when a page links to one); at each address that
        // holds no id, the page, and a post of ids that are not ids.
        for (const path of [first!, ...others]) {
          const page = await browser.send(path, { headers: { accept: "text/html" } });
          const html = await page.text();
          if (page.status >= 500) failures.push(`${page.status} ${name}: GET ${path}`);
          for (const [, href] of html.matchAll(/href="(\/[^"?#]*)/g)) seen.add(href!);
          if (path === first)
            await expectBelow500(browser, name, `${path}?q=${encodeURIComponent(NUL)}&page=-1&before=not-a-cursor`);
          if (!route.hasAction) continue;
          const forms = formsOf(html);
          const names = [...new Set(forms.flatMap((form) => form.names))];
          const bodies = malformedBodies(names);
          for (const body of path === first ? bodies : bodies.filter(({ label }) => label.startsWith("ids")))
            await post(browser, name, path, body);
          if (path !== first) continue;
          for (const form of forms) {
            for (const value of ["not-a-uuid", NUL]) {
              const fields = new URLSearchParams(
                form.names.filter((field) => field !== "intent").map((field) => [field, value]),
              );
              if (form.intent !== null) fields.set("intent", form.intent);
              await post(browser, `${name} ${form.intent ?? "form"}`, path, {
                label: JSON.stringify(value),
                contentType: "application/x-www-form-urlencoded",
                body: fields.toString(),
              });
            }
          }
        }
        if (route.hasAction && name !== "guest" && browser.cookie !== signedInCookie[name as "shopper" | "operator"])
          await signIn(name as "shopper" | "operator");
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it("every Hono endpoint answers malformed requests below 500, as anyone", async () => {
    failures.length = 0;
    // Every endpoint that takes a body (POST, DELETE, PUT, PATCH) at an address without parameters.
    const endpoints = [
      ...new Map(
        shop.app.routes
          .filter((route) => !["GET", "HEAD", "ALL"].includes(route.method) && !/[*:]/.test(route.path))
          .map((route) => [`${route.method} ${route.path}`, route] as const),
      ).values(),
    ];
    expect(endpoints.map((route) => route.path)).toEqual(
      expect.arrayContaining(["/payments/create", "/basket/add", "/checkout/promotion", "/webhooks/stripe"]),
    );
    for (const [name, browser] of Object.entries(who)) {
      for (const { method, path } of endpoints) {
        for (const address of [path, `${path}?total=${encodeURIComponent(NUL)}`]) {
          for (const body of malformedBodies(["productId", "quantity", "returnTo", "id", "code", "line1"]))
            await post(browser, name, address, body, method);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
