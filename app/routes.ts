import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

export default [
  // Every screen with the shop's header.
  layout("routes/shop-layout.tsx", [
    index("routes/home.tsx"),
    route("checkout", "routes/checkout.tsx"),
    route("payment", "routes/payment.tsx"),
    route("orders", "routes/orders.tsx"),
    route("*", "routes/not-found.tsx"),
  ]),
  route("login", "routes/login.tsx"),
  route("robots.txt", "routes/robots-txt.ts"),
] satisfies RouteConfig;
