// The console's former address for its people, redirected to /admin/staff.

import { redirect } from "react-router";
import type { Route } from "./+types/operators";
import { requireConsole } from "./require-operator";

/** The console's former address for its people: /admin/staff now. */
export function loader({ context }: Route.LoaderArgs) {
  requireConsole(context, "routes/admin/operators");
  return redirect("/admin/staff", 301);
}
