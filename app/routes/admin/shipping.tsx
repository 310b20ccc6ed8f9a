// /admin/shipping: shipping zones and their methods, each with its form.

import { data, useNavigation } from "react-router";
import type { Route } from "./+types/shipping";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { decimalAmount, formatCents } from "#shared/money";
import { methodFormSchema, removeFormSchema, zoneFormSchema } from "#shared/shipping-schemas";
import { ZoneForm } from "#app/features/admin/shipping/shipping-forms";
import { ZoneSection } from "#app/features/admin/shipping/zone-section";
import { requireConsole } from "./require-operator";

/** Which form on the page an answer belongs to: "add-zone", "zone-{id}", "add-method-{zoneId}", "method-{id}". */
type ActionAnswer =
  | { form: string; errors: Record<string, string>; values: Record<string, string> }
  | { form: string; errors?: undefined; done: string };

export async function loader({ context }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/shipping");
  const zones = await services.shipping.listZones();
  return {
    zones: zones.map((zone) => ({
      id: zone.id,
      name: zone.name,
      countries: zone.countries.join(", "),
      states: zone.states.join(", "),
      methods: zone.methods.map((method) => ({
        id: method.id,
        name: method.name,
        estimate: method.estimate,
        price: decimalAmount(method.priceCents),
        priceText: method.priceCents === 0 ? "FREE" : formatCents(method.priceCents),
        freeOver: method.freeOverCents === null ? "" : decimalAmount(method.freeOverCents),
        weightTiers: method.weightTiers
          .map((tier) => `${tier.upToGrams} = ${decimalAmount(tier.priceCents)}`)
          .join("\n"),
      })),
    })),
  };
}

/** Every form of the page posts here with its intent; each change is one service call, audited by the service. */
export async function action({ context, request }: Route.ActionArgs) {
  const { actor, services } = requireConsole(context, "routes/admin/shipping", null);
  const fields = await readFormOrRefuse(request);
  const values = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, value.slice(0, 2000)]));
  const formKey =
    fields.intent === "add-zone"
      ? "add-zone"
      : fields.intent === "add-method"
        ? `add-method-${fields.zoneId ?? ""}`
        : fields.intent === "save-method"
          ? `method-${fields.methodId ?? ""}`
          : `zone-${fields.zoneId ?? ""}`;
  const refuse = (errors: Record<string, string>, status: number) =>
    data<ActionAnswer>({ form: formKey, errors, values }, { status });
  try {
    if (fields.intent === "add-zone" || fields.intent === "save-zone") {
      const parsed = zoneFormSchema.safeParse(fields);
      if (!parsed.success) return refuse(fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), 400);
      const input = { name: parsed.data.name, countries: parsed.data.countries, states: parsed.data.states };
      if (parsed.data.intent === "add-zone") await services.shipping.createZone(actor, input);
      else await services.shipping.updateZone(actor, parsed.data.zoneId ?? "", input);
      return { form: formKey, done: `Zone “${input.name}” saved.` } satisfies ActionAnswer;
    }
    if (fields.intent === "add-method" || fields.intent === "save-method") {
      const parsed = methodFormSchema.safeParse(fields);
      if (!parsed.success) return refuse(fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), 400);
      const { name, estimate, price, freeOver, weightTiers } = parsed.data;
      const input = { name, estimate, priceCents: price, freeOverCents: freeOver, weightTiers };
      if (parsed.data.intent === "add-method") await services.shipping.addMethod(actor, parsed.data.zoneId, input);
      else await services.shipping.updateMethod(actor, parsed.data.methodId ?? "", input);
      return { form: formKey, done: `Method “${name}” saved.` } satisfies ActionAnswer;
    }
    const removal = removeFormSchema.safeParse(fields);
    if (!removal.success || removal.data.intent === "remove-rate") return refuse({ form: UNKNOWN_FIELDS_CONSOLE }, 400);
    if (removal.data.intent === "remove-zone") await services.shipping.removeZone(actor, removal.data.id);
    else await services.shipping.removeMethod(actor, removal.data.id);
    return { form: "removed", done: "Removed." } satisfies ActionAnswer;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return refuse({ [field]: error.message }, error.status);
  }
}

export default function Shipping({ loaderData, actionData }: Route.ComponentProps) {
  const isBusy = useNavigation().state !== "idle";
  // A refusal of one form: its errors and what was typed, drawn again in that form only.
  const answerFor = (form: string): { errors: Record<string, string>; values: Record<string, string> } | undefined =>
    actionData?.form === form && "errors" in actionData && actionData.errors
      ? { errors: actionData.errors, values: actionData.values }
      : undefined;
  return (
    <main id="main" className="console-main">
      <title>Shipping | Console</title>
      <h1>Shipping</h1>
      <p>
        Each zone covers countries (and, for the United States, optionally some states); a country or state is in one
        zone at most. Shoppers choose among the methods of the zone that serves their address; the cheapest is chosen
        for them first. Prices are without tax.
      </p>
      <p className="console-notice" role="status">
        {actionData && "done" in actionData ? actionData.done : ""}
      </p>
      {loaderData.zones.map((zone) => (
        <ZoneSection key={zone.id} zone={zone} answerFor={answerFor} isBusy={isBusy} />
      ))}
      <section className="console-section" aria-labelledby="add-zone-heading">
        <h2 id="add-zone-heading">Add a zone</h2>
        <ZoneForm
          formKey="add-zone"
          values={answerFor("add-zone")?.errors ? answerFor("add-zone")!.values : {}}
          errors={answerFor("add-zone")?.errors}
          isBusy={isBusy}
        />
      </section>
    </main>
  );
}
