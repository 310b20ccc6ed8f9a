import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/taxes";
import { countryName, US_STATES } from "#shared/address";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { formatRate } from "#shared/pricing";
import { removeFormSchema, taxRateFormSchema } from "#shared/shipping-schemas";
import { ConsoleField } from "#app/features/admin/console-field";
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
      {loaderData.rates.map((rate) => {
        const answer = answerFor(`rate-${rate.id}`);
        const formKey = `rate-${rate.id}`;
        return (
          <section key={rate.id} className="console-section" aria-labelledby={`heading-${formKey}`}>
            <h2 id={`heading-${formKey}`}>
              {rate.where}: {rate.rate}%{rate.taxShipping ? ", shipping taxed" : ""}
              {rate.taxGiftCards ? ", gift cards taxed" : ""}
            </h2>
            <Form method="post" className="console-form" noValidate key={JSON.stringify(rate)}>
              <input type="hidden" name="rateId" value={rate.id} />
              <input type="hidden" name="country" value={rate.country} />
              <input type="hidden" name="state" value={rate.state} />
              {answer?.errors.form ? <p className="console-field__error">{answer.errors.form}</p> : null}
              <ConsoleField
                form={formKey}
                name="rate"
                label="Rate (%)"
                defaultValue={answer?.errors ? answer.values.rate : rate.rate}
                error={answer?.errors?.rate}
                inputMode="decimal"
              />
              <TaxShipping defaultChecked={answer?.errors ? answer.values.taxShipping === "on" : rate.taxShipping} />
              <TaxGiftCards defaultChecked={answer?.errors ? answer.values.taxGiftCards === "on" : rate.taxGiftCards} />
              <div>
                <button
                  type="submit"
                  name="intent"
                  value="save-rate"
                  className="console-button console-button--primary"
                  disabled={isBusy}
                >
                  Save
                </button>
              </div>
            </Form>
            <Form method="post">
              <input type="hidden" name="id" value={rate.id} />
              <button
                type="submit"
                name="intent"
                value="remove-rate"
                className="console-link-button"
                disabled={isBusy}
                aria-label={`Remove the rate for ${rate.where}`}
              >
                Remove
              </button>
            </Form>
          </section>
        );
      })}
      <section className="console-section" aria-labelledby="add-rate-heading">
        <h2 id="add-rate-heading">Add a rate</h2>
        <Form
          method="post"
          className="console-form"
          noValidate
          key={adding?.errors ? "refused" : String(loaderData.rates.length)}
        >
          {adding?.errors?.form ? <p className="console-field__error">{adding.errors.form}</p> : null}
          <ConsoleField
            form="add-rate"
            name="country"
            label="Country"
            hint="Two-letter code, like US."
            defaultValue={adding?.errors ? adding.values.country : "US"}
            error={adding?.errors?.country}
          />
          <ConsoleField
            form="add-rate"
            name="state"
            label="State"
            hint="US only, optional: like CA. Empty: the whole country."
            defaultValue={adding?.errors ? adding.values.state : ""}
            error={adding?.errors?.state}
          />
          <ConsoleField
            form="add-rate"
            name="rate"
            label="Rate (%)"
            hint="0 to 100, up to 3 decimals, like 7.25."
            defaultValue={adding?.errors ? adding.values.rate : ""}
            error={adding?.errors?.rate}
            inputMode="decimal"
          />
          <TaxShipping defaultChecked={adding?.errors ? adding.values.taxShipping === "on" : false} />
          <TaxGiftCards defaultChecked={adding?.errors ? adding.values.taxGiftCards === "on" : false} />
          <div>
            <button
              type="submit"
              name="intent"
              value="add-rate"
              className="console-button console-button--primary"
              disabled={isBusy}
            >
              Add rate
            </button>
          </div>
        </Form>
      </section>
    </main>
  );
}

function TaxShipping({ defaultChecked }: { defaultChecked: boolean }) {
  return (
    <div className="console-field console-field--check">
      <label>
        <input type="checkbox" name="taxShipping" defaultChecked={defaultChecked} /> Tax shipping
      </label>
    </div>
  );
}

/** Gift cards are money kept for later: untaxed unless the rate says so. */
function TaxGiftCards({ defaultChecked }: { defaultChecked: boolean }) {
  return (
    <div className="console-field console-field--check">
      <label>
        <input type="checkbox" name="taxGiftCards" defaultChecked={defaultChecked} /> Charge this tax on gift cards
      </label>
    </div>
  );
}
