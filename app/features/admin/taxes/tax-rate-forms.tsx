// The taxes page's forms: one per rate (its percentage, whether it taxes shipping and gift cards, and Remove), and
// the form that adds a rate for a country or a US state.

import { Form } from "react-router";
import { ConsoleField } from "#app/features/admin/console-field";

type Answer = { errors: Record<string, string>; values: Record<string, string> } | undefined;

/** A rate as the loader words it. */
export interface TaxRateView {
  id: string;
  where: string;
  country: string;
  state: string;
  rate: string;
  taxShipping: boolean;
  taxGiftCards: boolean;
}

/** One rate's section: its heading says where and what it taxes; a refused save is drawn as typed. */
export function TaxRateSection({ rate, answer, isBusy }: { rate: TaxRateView; answer: Answer; isBusy: boolean }) {
  const formKey = `rate-${rate.id}`;
  return (
    <section className="console-section" aria-labelledby={`heading-${formKey}`}>
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
}

/** "Add a rate": country, state and rate; `formKey` redraws it empty after each rate added. */
export function AddRateForm({ adding, formKey, isBusy }: { adding: Answer; formKey: string; isBusy: boolean }) {
  return (
    <section className="console-section" aria-labelledby="add-rate-heading">
      <h2 id="add-rate-heading">Add a rate</h2>
      <Form method="post" className="console-form" noValidate key={formKey}>
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
  );
}

/** "Tax shipping": the rate applies to the delivery charge too. */
export function TaxShipping({ defaultChecked }: { defaultChecked: boolean }) {
  return (
    <div className="console-field console-field--check">
      <label>
        <input type="checkbox" name="taxShipping" defaultChecked={defaultChecked} /> Tax shipping
      </label>
    </div>
  );
}

/** Gift cards are money kept for later: untaxed unless the rate says so. */
export function TaxGiftCards({ defaultChecked }: { defaultChecked: boolean }) {
  return (
    <div className="console-field console-field--check">
      <label>
        <input type="checkbox" name="taxGiftCards" defaultChecked={defaultChecked} /> Charge this tax on gift cards
      </label>
    </div>
  );
}
