import { afterAll, beforeAll, expect, it } from "vitest";
import {
  CONSOLE_AREA_IDS,
  CONSOLE_ROUTES,
  type ConsoleAccess,
  type ConsoleArea,
  type ConsoleRouteId,
  type RouteNeeds,
} from "#shared/console-access";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const OWNER = "owner@access.test";
const PASSWORD = "violet tractor harbour pickle";
const BOOK = "12321341";
const ORDER_NUMBER = "SF-2611-AC7Q";

/** Who may: Staff with an area (or with any of a list), Managers and Owners; or Owners only. */
type Who = ConsoleArea | readonly ConsoleArea[] | "owner";

/**
 * Every console page and action, and who may use it: the roles of docs/staff.md, written out. A console route the route table
 * has and this table lacks fails the first test, so a new page or button cannot ship without saying who may use it.
 * "POST <path> <intent>": the action's button; "POST <path>": an action with one need for all its buttons.
 */
const TABLE: Record<string, Who> = {
  "GET /admin": "reports",
  "GET /admin/orders": ["orders", "refunds"],
  "POST /admin/orders refund-held-payment": "refunds",
  "GET /admin/orders/export": "reports",
  "GET /admin/orders/:number": ["orders", "refunds"],
  "POST /admin/orders/:number ship": "orders",
  "POST /admin/orders/:number refund": "refunds",
  "POST /admin/orders/:number cancel-and-refund": "refunds",
  "GET /admin/returns": ["orders", "refunds"],
  "GET /admin/returns/:number": ["orders", "refunds"],
  "POST /admin/returns/:number approve": "orders",
  "POST /admin/returns/:number decline": "orders",
  "POST /admin/returns/:number cancel": "orders",
  "POST /admin/returns/:number receive": "orders",
  "POST /admin/returns/:number replace": "orders",
  "POST /admin/returns/:number refund": "refunds",
  "GET /admin/products": "products",
  "GET /admin/products/import": "products",
  "POST /admin/products/import": "products",
  "GET /admin/products/export": "reports",
  "GET /admin/products/:id": "products",
  "POST /admin/products/:id": "products",
  "GET /admin/departments": "products",
  "POST /admin/departments": "products",
  "GET /admin/promotions": "promotions",
  "POST /admin/promotions": "promotions",
  "GET /admin/promotions/:id": "promotions",
  "POST /admin/promotions/:id": "promotions",
  "GET /admin/reviews": "reviews",
  "POST /admin/reviews": "reviews",
  "GET /admin/shipping": "shipping",
  "POST /admin/shipping": "shipping",
  "GET /admin/taxes": "shipping",
  "POST /admin/taxes": "shipping",
  "GET /admin/outbox": "reports",
  "GET /admin/outbox/:id": "reports",
  "GET /admin/outbox/:id/html": "reports",
  "GET /admin/audit": "reports",
  "GET /admin/staff": "owner",
  "POST /admin/staff": "owner",
  "GET /admin/operators": "owner",
  "GET /admin/settings": "owner",
  "POST /admin/settings": "owner",
  "GET /admin/recovery": "promotions",
  "POST /admin/recovery": "promotions",
  "GET /admin/gift-cards": "promotions",
  "POST /admin/gift-cards": "promotions",
  "GET /admin/store-credit": "refunds",
  "POST /admin/store-credit add-credit": "refunds",
  "POST /admin/store-credit remove-credit": "refunds",
  "GET /admin/store-credit/export": "reports",
};

/** Every role: Owner, Manager, and Staff with each area alone. */
const ROLES: [string, ConsoleAccess][] = [
  ["Owner", { role: "owner", areas: [] }],
  ["Manager", { role: "manager", areas: [] }],
  ...CONSOLE_AREA_IDS.map((area): [string, ConsoleAccess] => [`Staff (${area})`, { role: "staff", areas: [area] }]),
];

const mayUse = (access: ConsoleAccess, who: Who) =>
  access.role === "owner" ||
  (who !== "owner" &&
    (access.role === "manager" || (typeof who === "string" ? [who] : who).some((area) => access.areas.includes(area))));

/**
 * The console against every role, through the pages as a browser meets them: each page and each action answers 404
 * to a role without its area (changing nothing), and is open to one with it; the navigation lists only what opens.
 */
describeEachDatabase("console access by role", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  type Browser = ReturnType<typeof createBrowser>;
  const browsers = new Map<string, Browser>();
  const standIns: Record<string, string> = {};

  const html = (
    browser: Browser,
    path: string,
    init: { method?: string; body?: BodyInit; headers?: Record<string, string> } = {},
  ) => browser.send(path, { ...init, headers: { accept: "text/html", origin: "http://shop.test", ...init.headers } });
  const auditCount = async () =>
    Number(
      (
        await getDatabase()
          .db.selectFrom("audit_log")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function signedIn(email: string, intent: "sign-in" | "register") {
    const browser = createBrowser(shop.app);
    const response = await browser.postForm("/login", { intent, email, password: PASSWORD }, { accept: "text/html" });
    expect(response.status, `${intent} ${email}`).toBe(302);
    return browser;
  }

  beforeAll(async () => {
    shop = await createPageShop(getDatabase(), { operator: { email: OWNER, password: PASSWORD } });
    const owner = await getDatabase()
      .db.selectFrom("users")
      .select(["id", "email"])
      .where("email", "=", OWNER)
      .executeTakeFirstOrThrow();
    for (const [name, access] of ROLES) {
      if (access.role === "owner") {
        browsers.set(name, await signedIn(OWNER, "sign-in"));
        continue;
      }
      const email = `${name.replace(/\W+/g, "-").toLowerCase()}${Date.now()}@access.test`;
      await signedIn(email, "register");
      await shop.services.operators.invite(owner, { email, ...access });
      browsers.set(name, await signedIn(email, "sign-in"));
    }
    await getDatabase()
      .db.insertInto("orders")
      .values({
        id: "pi_accesstest1",
        number: ORDER_NUMBER,
        session_id: null,
        user_id: null,
        amount_cents: 1196,
        currency: "usd",
        items: JSON.stringify([
          {
            productId: BOOK,
            title: "A book",
            priceCents: 1196,
            quantity: 1,
            rating: 4,
            image: { src: "/images/book.webp", width: 10, height: 10 },
          },
        ]),
        created_at: new Date(),
        paid_at: new Date(),
        contact_email: "buyer@access.test",
      })
      .execute();
    standIns[":number"] = ORDER_NUMBER;
    standIns["returns/:number"] = (
      await getDatabase()
        .db.transaction()
        .execute((trx) =>
          shop.services.returns.openReturn(trx, {
            orderId: "pi_accesstest1",
            kind: "return",
            lines: [{ index: 0, quantity: 1, reason: "other", resolution: "refund" }],
            requestedBy: "shopper",
            returnFeeCents: 0,
          }),
        )
    ).number;
    standIns[":id"] = BOOK;
    standIns["outbox/:id"] = (
      await getDatabase().db.selectFrom("email_outbox").select("id").orderBy("created_at").executeTakeFirstOrThrow()
    ).id;
    standIns["promotions/:id"] = await shop.services.promotions.create(
      {
        code: `ACCESS-${Date.now()}`,
        kind: "percentage",
        value: 10,
        minimumSubtotalCents: 0,
        startsAt: null,
        endsAt: null,
        usageLimit: null,
        oncePerCustomer: false,
        status: "active",
      },
      owner,
    );
  }, 120_000);
  afterAll(() => shop.close());

  const addressOf = (path: string) =>
    path
      .replace("outbox/:id", `outbox/${standIns["outbox/:id"]}`)
      .replace("promotions/:id", `promotions/${standIns["promotions/:id"]}`)
      .replace("returns/:number", `returns/${standIns["returns/:number"]}`)
      .replace(":id", standIns[":id"]!)
      .replace(":number", standIns[":number"]!);

  it("has a row for every console route and every action's button, and the shop's table agrees with it", () => {
    const routes = shop.routeTable.filter((route) => /^\/admin(\/|$)/.test(route.path) || route.path === "/admin");
    const missing: string[] = [];
    for (const route of routes) {
      const path = route.path.replace(/\/$/, "");
      if (route.id === "routes/admin/admin-layout") continue;
      if (!(`GET ${path}` in TABLE)) missing.push(`GET ${path} (${route.id})`);
      const postRows = Object.entries(TABLE).filter(
        ([row]) => row === `POST ${path}` || row.startsWith(`POST ${path} `),
      );
      if (route.hasAction && postRows.length === 0) missing.push(`POST ${path} (${route.id})`);
      // The shop's own table (shared/console-access.ts) names the route, and each button this table names.
      const needs = (CONSOLE_ROUTES as Record<string, RouteNeeds>)[route.id];
      if (!needs) missing.push(`${route.id} in shared/console-access.ts`);
      else {
        expect(needs.page, route.id).toEqual(TABLE[`GET ${path}`]);
        for (const [row, who] of postRows) {
          const intent = row.slice(`POST ${path}`.length).trim();
          const action = needs.action;
          if (!route.hasAction) missing.push(`${row}: the route has no action`);
          expect(typeof action === "string" ? action : action?.[intent], row).toBe(who);
        }
      }
    }
    expect(missing).toEqual([]);
    // And nothing in either table that the route table does not have.
    const known = new Set(routes.map((route) => route.id));
    expect(Object.keys(CONSOLE_ROUTES).filter((id) => !known.has(id as ConsoleRouteId))).toEqual([]);
  });

  it("answers every page and action with 404 to a role without its area, changing nothing, and opens it to the others", async () => {
    const outcomes: string[] = [];
    for (const [name, access] of ROLES) {
      const browser = browsers.get(name)!;
      for (const [row, who] of Object.entries(TABLE)) {
        const [method, path, intent] = row.split(" ") as [string, string, string | undefined];
        const address = addressOf(path);
        const allowed = mayUse(access, who);
        const before = allowed ? 0 : await auditCount();
        const response =
          method === "GET"
            ? await html(browser, address)
            : await html(browser, address, {
                method: "POST",
                // The button alone: an allowed role's form is refused for what it lacks, or asks to confirm; never done.
                body: new URLSearchParams(intent ? { intent } : { intent: "probe" }),
                headers: { "content-type": "application/x-www-form-urlencoded" },
              });
        const refused = response.status === 404;
        if (refused === allowed) outcomes.push(`${name} ${row}: ${response.status}`);
        if (!allowed) expect(await auditCount(), `${name} ${row}`).toBe(before);
      }
    }
    expect(outcomes).toEqual([]);
  }, 300_000);

  it("lists in the navigation only the sections a role may open", async () => {
    const navOf = async (browser: Browser, address: string) => {
      const page = await (await html(browser, address)).text();
      const nav = /<nav[^>]*aria-label="Console"[^>]*>([\s\S]*?)<\/nav>/.exec(page)?.[1] ?? "";
      return [...nav.matchAll(/<a[^>]*>([^<]*)<\/a>/g)].map((match) => match[1]);
    };
    expect(await navOf(browsers.get("Owner")!, "/admin")).toEqual([
      "Dashboard",
      "Orders",
      "Returns",
      "Products",
      "Reviews",
      "Departments",
      "Shipping",
      "Taxes",
      "Promotions",
      "Store credit",
      "Gift cards",
      "Basket reminders",
      "Outbox",
      "Staff",
      "Settings",
      "Audit log",
    ]);
    expect(await navOf(browsers.get("Manager")!, "/admin")).not.toContain("Staff");
    expect(await navOf(browsers.get("Manager")!, "/admin")).not.toContain("Settings");
    expect(await navOf(browsers.get("Staff (promotions)")!, "/admin/promotions")).toEqual([
      "Promotions",
      "Gift cards",
      "Basket reminders",
    ]);
    expect(await navOf(browsers.get("Staff (orders)")!, "/admin/orders")).toEqual(["Orders", "Returns"]);
    expect(await navOf(browsers.get("Staff (products)")!, "/admin/products")).toEqual(["Products", "Departments"]);
    expect(await navOf(browsers.get("Staff (reports)")!, "/admin")).toEqual(["Dashboard", "Outbox", "Audit log"]);
    // A page draws only the buttons the role may press: no CSV export without Reports and exports.
    const ordersPage = async (name: string) => (await html(browsers.get(name)!, "/admin/orders")).text();
    expect(await ordersPage("Staff (orders)")).not.toContain("Export CSV");
    expect(await ordersPage("Manager")).toContain("Export CSV");
    // The shop's header links each to the first page they may open.
    const header = await (await html(browsers.get("Staff (orders)")!, "/")).text();
    expect(header).toMatch(/<a[^>]*href="\/admin\/orders"[^>]*>.*Admin/);
  });
});
