// /admin/taxes: the tax rates, each with its form, and a new rate's.

import { data, useNavigation } from "react-router";
import type { Route } from "./+types/taxes";
import { countryName, US_STATES } from "#shared/address";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { formatRate } from "#shared/pricing";
import { removeFormSchema, taxRateFormSchema } from "#shared/shipping-schemas";
import { AddRateForm, TaxRateSection } from "#app/features/admin/taxes/tax-rate-forms";
import { requireConsole } from "./require-operator";

/** Which form an answer belongs to: "add-rate" or "rate-{id}". */
type ActionAnswer =
  | { form: string; errors: Record<string, string>; values: Record<string, string> }
  | { form: string; errors?: undefined; done: string };

/** "7.25" from 7250 thousandths of a percent: what the "Rate (%)" field holds. */
function rateField(rate: number): string {
  return formatRate(rate).replace("%", "");
}

export async function loader({ context }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/taxes");
  const rates = await services.shipping.listTaxRates();
  return {
    rates: rates.map((rate) => ({
      id: rate.id,
      where: rate.state
        ? `${US_STATES.find(([code]) => code === rate.state)?.[1] ?? rate.state}, ${countryName(rate.country)}`
        : countryName(rate.country),
      country: rate.country,
      state: rate.state ?? "",
      rate: rateField(rate.rate),
      taxShipping: rate.taxesShipping,
      taxGiftCards: rate.taxesGiftCards ?? false,
    })),
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { actor, services } = requireConsole(context, "routes/admin/taxes", null);
  const fields = await readFormOrRefuse(request);
  const values = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, value.slice(0, 200)]));
  const formKey = fields.intent === "save-rate" ? `rate-${fields.rateId ?? ""}` : "add-rate";
  const refuse = (errors: Record<string, string>, status: number) =>
    data<ActionAnswer>({ form: formKey, errors, values }, { status });
  try {
    if (fields.intent === "remove-rate") {
      const removal = removeFormSchema.safeParse(fields);
      if (!removal.success) return refuse({ form: UNKNOWN_FIELDS_CONSOLE }, 400);
      await services.shipping.removeTaxRate(actor, removal.data.id);
      return { form: "removed", done: "Rate removed." } satisfies ActionAnswer;
    }
    const parsed = taxRateFormSchema.safeParse(fields);
    if (!parsed.success) return refuse(fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), 400);
    const { country, state, rate, taxShipping, taxGiftCards } = parsed.data;
    const taxes = { taxesShipping: taxShipping === "on", taxesGiftCards: taxGiftCards === "on" };
    if (parsed.data.intent === "add-rate")
      await services.shipping.addTaxRate(actor, { country, state, rate, ...taxes });
    else await services.shipping.updateTaxRate(actor, parsed.data.rateId ?? "", { rate, ...taxes });
    return { form: formKey, done: `Rate of ${formatRate(rate)} saved.` } satisfies ActionAnswer;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return refuse({ [field]: error.message }, error.status);
  }
}

export default function Taxes({ loaderData, actionData }: Route.ComponentProps) {
  const isBusy = useNavigation().state !== "idle";
  // A refusal of one form: its errors and what was typed, drawn again in that form only.
  const answerFor = (form: string): { errors: Record<string, string>; values: Record<string, string> } | undefined =>
    actionData?.form === form && "errors" in actionData && actionData.errors
      ? { errors: actionData.errors, values: actionData.values }
      : undefined;
  const adding = answerFor("add-rate");
  return (
    <main id="main" className="console-main">
      <title>Taxes | Console</title>
      <h1>Taxes</h1>
      <p>
        Sales tax by the delivery address: a US state&apos;s rate applies before its country&apos;s. Prices are entered
        and shown without tax; each line&apos;s tax, and the shipping&apos;s when the rate taxes shipping, is rounded to
        the cent (half a cent up).
      </p>
      <p className="console-notice" role="status">
        {actionData && "done" in actionData ? actionData.done : ""}
      </p>
      {loaderData.rates.length === 0 ? <p>No rates: no tax is charged.</p> : null}
      {loaderData.rates.map((rate) => (
        <TaxRateSection key={rate.id} rate={rate} answer={answerFor(`rate-${rate.id}`)} isBusy={isBusy} />
      ))}
      <AddRateForm
        adding={adding}
        formKey={adding?.errors ? "refused" : String(loaderData.rates.length)}
        isBusy={isBusy}
      />
    </main>
  );
}
