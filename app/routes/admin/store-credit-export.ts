// The outstanding balances' CSV download: what the shop owed on store credit and gift cards at the end of a day.

import { data } from "react-router";
import { outstandingBalancesSchema } from "#shared/store-credit-schemas";
import { requireConsole } from "./require-operator";
import type { Route } from "./+types/store-credit-export";

/** "Outstanding balances" as a CSV: what the shop owed on every store credit and gift card at the end of a day. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/store-credit-export");
  const { on } = outstandingBalancesSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  if (!on) throw data("Choose a date.", { status: 400 });
  return services.storeCredit.outstandingCsv(request, on);
}
