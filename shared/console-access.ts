/**
 * Who may do what in the console: the roles, the areas an Owner ticks for a Staff member, and the one table that says
 * which area every console page and action needs. Each console loader and action asks through requireConsole
 * (app/routes/admin/require-operator.ts) with its route id; the server's tests walk the route table against it, so a
 * console route without an entry here fails them.
 */

export type StaffRole = "owner" | "manager" | "staff";

export const ROLE_LABELS: Record<StaffRole, string> = { owner: "Owner", manager: "Manager", staff: "Staff" };

/** The areas a Staff member may be given, in the order the staff form lists them. */
export const CONSOLE_AREAS = [
  { id: "orders", label: "Orders and returns", detail: "ship, cancel without refund" },
  { id: "refunds", label: "Refunds and store credit", detail: "" },
  { id: "products", label: "Products, stock and departments", detail: "" },
  { id: "promotions", label: "Promotions and gift cards", detail: "" },
  { id: "reviews", label: "Reviews", detail: "" },
  { id: "shipping", label: "Shipping and taxes", detail: "" },
  { id: "reports", label: "Reports and exports", detail: "dashboard, CSV, outbox, audit log" },
] as const;

export type ConsoleArea = (typeof CONSOLE_AREAS)[number]["id"];

export const CONSOLE_AREA_IDS: readonly ConsoleArea[] = CONSOLE_AREAS.map((area) => area.id);

/**
 * What a page or action needs: one of the areas; "owner" (staff and the shop's settings: Owners only); or "console"
 * (any member of staff: the console's frame).
 */
export type ConsoleNeed = ConsoleArea | "owner" | "console";

/** A console account's standing, as read with its session on every request. */
export interface ConsoleAccess {
  role: StaffRole;
  areas: readonly ConsoleArea[];
}

/**
 * A route's needs: its page (loader), one need or a list of which any opens it; and its action's, either one need
 * for every button or one per `intent` (the form's button). An intent the map does not name needs every area it names.
 */
export interface RouteNeeds {
  page: ConsoleNeed | readonly ConsoleNeed[];
  action?: ConsoleNeed | Readonly<Record<string, ConsoleNeed>>;
}

/**
 * Every console route, by the id React Router gives it (app/routes.ts), and what it needs. A new console page or
 * action is one line here.
 */
export const CONSOLE_ROUTES = {
  "routes/admin/admin-layout": { page: "console" },
  "routes/admin/admin-index": { page: "reports" },
  // Refunds are made from the orders' pages: either area opens them, and each button asks for its own.
  "routes/admin/orders": { page: ["orders", "refunds"], action: { "refund-held-payment": "refunds" } },
  "routes/admin/orders-export": { page: "reports" },
  "routes/admin/order-detail": {
    page: ["orders", "refunds"],
    action: { ship: "orders", refund: "refunds", "cancel-and-refund": "refunds" },
  },
  // Returns are decided and received by the orders' people; their refund is the refunds' people's.
  "routes/admin/returns": { page: ["orders", "refunds"] },
  "routes/admin/return-detail": {
    page: ["orders", "refunds"],
    action: {
      approve: "orders",
      decline: "orders",
      cancel: "orders",
      receive: "orders",
      replace: "orders",
      refund: "refunds",
    },
  },
  "routes/admin/products": { page: "products" },
  "routes/admin/product-import": { page: "products", action: "products" },
  "routes/admin/products-export": { page: "reports" },
  "routes/admin/product-edit": { page: "products", action: "products" },
  "routes/admin/departments": { page: "products", action: "products" },
  "routes/admin/promotions": { page: "promotions", action: "promotions" },
  "routes/admin/promotion-edit": { page: "promotions", action: "promotions" },
  "routes/admin/reviews": { page: "reviews", action: "reviews" },
  "routes/admin/shipping": { page: "shipping", action: "shipping" },
  "routes/admin/taxes": { page: "shipping", action: "shipping" },
  "routes/admin/outbox": { page: "reports" },
  "routes/admin/outbox-email": { page: "reports" },
  "routes/admin/outbox-email-html": { page: "reports" },
  "routes/admin/audit": { page: "reports" },
  "routes/admin/staff": { page: "owner", action: "owner" },
  "routes/admin/settings": { page: "owner", action: "owner" },
  // Basket reminders bring shoppers back with offers: the promotions' people run them.
  "routes/admin/recovery": { page: "promotions", action: "promotions" },
  "routes/admin/operators": { page: "owner" },
  // Gift cards are sold and given like promotions; issuing, disabling and adjusting one is the same people's work.
  "routes/admin/gift-cards": { page: "promotions", action: "promotions" },
  "routes/admin/store-credit": { page: "refunds", action: { "add-credit": "refunds", "remove-credit": "refunds" } },
  // What the shop owes on balances on a date is a report (the liability).
  "routes/admin/store-credit-export": { page: "reports" },
} as const satisfies Record<string, RouteNeeds>;

export type ConsoleRouteId = keyof typeof CONSOLE_ROUTES;

/** Whether the account may do what needs `need`; no access (a shopper, a guest) may do nothing. */
export function allows(access: ConsoleAccess | null | undefined, need: ConsoleNeed): boolean {
  if (!access) return false;
  if (access.role === "owner") return true;
  if (need === "owner") return false;
  if (access.role === "manager" || need === "console") return true;
  return access.areas.includes(need);
}

/** Whether the account may open a route's page (no intent given) or press its action's button. */
export function mayUse(access: ConsoleAccess | null | undefined, route: ConsoleRouteId, intent?: string | null) {
  const needs: RouteNeeds = CONSOLE_ROUTES[route];
  if (intent === undefined) {
    const page: readonly ConsoleNeed[] = typeof needs.page === "string" ? [needs.page] : needs.page;
    return page.some((need) => allows(access, need));
  }
  const action = needs.action;
  if (action === undefined) return allows(access, "owner");
  if (typeof action === "string") return allows(access, action);
  const named = intent === null ? undefined : action[intent];
  return named ? allows(access, named) : Object.values(action).every((need) => allows(access, need));
}

/** The console's sections in its navigation, each shown to those who may open it. */
export const CONSOLE_SECTIONS: readonly { to: string; label: string; route: ConsoleRouteId }[] = [
  { to: "/admin", label: "Dashboard", route: "routes/admin/admin-index" },
  { to: "/admin/orders", label: "Orders", route: "routes/admin/orders" },
  { to: "/admin/returns", label: "Returns", route: "routes/admin/returns" },
  { to: "/admin/products", label: "Products", route: "routes/admin/products" },
  { to: "/admin/reviews", label: "Reviews", route: "routes/admin/reviews" },
  { to: "/admin/departments", label: "Departments", route: "routes/admin/departments" },
  { to: "/admin/shipping", label: "Shipping", route: "routes/admin/shipping" },
  { to: "/admin/taxes", label: "Taxes", route: "routes/admin/taxes" },
  { to: "/admin/promotions", label: "Promotions", route: "routes/admin/promotions" },
  { to: "/admin/store-credit", label: "Store credit", route: "routes/admin/store-credit" },
  { to: "/admin/gift-cards", label: "Gift cards", route: "routes/admin/gift-cards" },
  { to: "/admin/recovery", label: "Basket reminders", route: "routes/admin/recovery" },
  { to: "/admin/outbox", label: "Outbox", route: "routes/admin/outbox" },
  { to: "/admin/staff", label: "Staff", route: "routes/admin/staff" },
  { to: "/admin/settings", label: "Settings", route: "routes/admin/settings" },
  { to: "/admin/audit", label: "Audit log", route: "routes/admin/audit" },
];

/** Where the console opens for an account: the first section it may open ("/admin" for nobody, who is shown 404). */
export function consoleHomeOf(access: ConsoleAccess | null | undefined): string {
  return CONSOLE_SECTIONS.find((section) => mayUse(access, section.route))?.to ?? "/admin";
}
