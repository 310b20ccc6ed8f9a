import { redirect } from "react-router";
import type { Route } from "./+types/admin-index";
import { requireOperator } from "./require-operator";

/** /admin opens on the products. */
export function loader({ context }: Route.LoaderArgs) {
  requireOperator(context);
  return redirect("/admin/products");
}
