import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

export default [
  // Every screen with the shop's header.
  layout("routes/shop-layout.tsx", [
    index("routes/home.tsx"),
    route("checkout", "routes/checkout.tsx"),
    route("payment", "routes/payment.tsx"),
    route("payment/return", "routes/payment-return.tsx"),
    route("orders", "routes/orders.tsx"),
    route("orders/:number", "routes/order.tsx"),
    route("products/:slug", "routes/product.tsx"),
    route("search", "routes/search.tsx"),
    route("account", "routes/account.tsx"),
    route("conditions", "routes/conditions.tsx"),
    route("privacy", "routes/privacy.tsx"),
    route("unsubscribe", "routes/unsubscribe.tsx"),
    route("stock-alerts/confirm", "routes/stock-alert-confirm.tsx"),
    route("*", "routes/not-found.tsx"),
  ]),
  route("login", "routes/login.tsx"),
  route("forgot-password", "routes/forgot-password.tsx"),
  route("reset-password", "routes/reset-password.tsx"),
  route("verify-email", "routes/verify-email.tsx"),
  // The operator console: its own layout and modules; to anybody not an operator it is the 404 page (server/http/admin-guard.ts).
  route("admin", "routes/admin/admin-layout.tsx", [
    index("routes/admin/admin-index.tsx"),
    route("products", "routes/admin/products.tsx"),
    route("products/:id", "routes/admin/product-edit.tsx"),
    route("operators", "routes/admin/operators.tsx"),
    route("orders", "routes/admin/orders.tsx"),
    route("orders/:number", "routes/admin/order-detail.tsx"),
    route("outbox", "routes/admin/outbox.tsx"),
    route("reviews", "routes/admin/reviews.tsx"),
    route("audit", "routes/admin/audit.tsx"),
  ]),
  route("write-a-review/:productId", "routes/write-a-review.ts"),
  route("robots.txt", "routes/robots-txt.ts"),
  route("sitemap.xml", "routes/sitemap-xml.ts"),
  route("favicon.ico", "routes/favicon-ico.ts"),
] satisfies RouteConfig;
