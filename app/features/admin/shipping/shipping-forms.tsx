// The shipping page's two forms, a zone's (name, countries, states) and a method's (name, estimate, price, free over,
// weight tiers), each drawn once per zone or method and once empty to add one; ids carry the form's key.

import { Form } from "react-router";
import { ConsoleField } from "#app/features/admin/console-field";

type Answer = { errors: Record<string, string>; values: Record<string, string> } | undefined;
export type { Answer as ShippingFormAnswer };

/** A refusal that names no field, above the form's fields. */
function FormError({ message }: { message: string | undefined }) {
  return message ? (
    <p className="console-field__error" role="alert">
      {message}
    </p>
  ) : null;
}

/** A zone's form: "Save" for a zone, "Add zone" without one. */
export function ZoneForm({
  formKey,
  zoneId,
  values,
  errors,
  isBusy,
}: {
  formKey: string;
  zoneId?: string;
  values: Partial<Record<"name" | "countries" | "states", string>>;
  errors: Record<string, string> | undefined;
  isBusy: boolean;
}) {
  return (
    <Form method="post" className="console-form" noValidate key={JSON.stringify(values)}>
      {zoneId ? <input type="hidden" name="zoneId" value={zoneId} /> : null}
      <FormError message={errors?.form} />
      <ConsoleField form={formKey} name="name" label="Zone name" defaultValue={values.name} error={errors?.name} />
      <ConsoleField
        form={formKey}
        name="countries"
        label="Countries"
        hint="Two-letter codes separated by commas, like US, CA, GB."
        defaultValue={values.countries}
        error={errors?.countries}
      />
      <ConsoleField
        form={formKey}
        name="states"
        label="States"
        hint="US only, optional: two-letter codes like CA, NY. Empty: all of the United States."
        defaultValue={values.states}
        error={errors?.states}
      />
      <div>
        <button
          type="submit"
          name="intent"
          value={zoneId ? "save-zone" : "add-zone"}
          className="console-button console-button--primary"
          disabled={isBusy}
        >
          {zoneId ? "Save" : "Add zone"}
        </button>
      </div>
    </Form>
  );
}

/** A method's form: "Save" for a method, "Add method" without one. */
export function MethodForm({
  formKey,
  zoneId,
  methodId,
  values,
  errors,
  isBusy,
}: {
  formKey: string;
  zoneId: string;
  methodId?: string;
  values: Partial<Record<"name" | "estimate" | "price" | "freeOver" | "weightTiers", string>>;
  errors: Record<string, string> | undefined;
  isBusy: boolean;
}) {
  return (
    <Form method="post" className="console-form" noValidate key={JSON.stringify(values)}>
      <input type="hidden" name="zoneId" value={zoneId} />
      {methodId ? <input type="hidden" name="methodId" value={methodId} /> : null}
      <FormError message={errors?.form} />
      <ConsoleField form={formKey} name="name" label="Method name" defaultValue={values.name} error={errors?.name} />
      <ConsoleField
        form={formKey}
        name="estimate"
        label="Delivery estimate"
        hint="Shown to shoppers, like 3-5 business days."
        defaultValue={values.estimate}
        error={errors?.estimate}
      />
      <ConsoleField
        form={formKey}
        name="price"
        label="Price"
        hint="In dollars, like 5.99; 0 for free."
        defaultValue={values.price}
        error={errors?.price}
        inputMode="decimal"
      />
      <ConsoleField
        form={formKey}
        name="freeOver"
        label="Free over"
        hint="Optional: free when the items (after any discount) come to at least this."
        defaultValue={values.freeOver}
        error={errors?.freeOver}
        inputMode="decimal"
      />
      <ConsoleField
        form={formKey}
        name="weightTiers"
        label="Weight tiers"
        hint="Optional, one per line: up to grams = price, like 500 = 4.99. A basket heavier than every tier pays the price above."
        defaultValue={values.weightTiers}
        error={errors?.weightTiers}
        multiline
      />
      <div>
        <button
          type="submit"
          name="intent"
          value={methodId ? "save-method" : "add-method"}
          className="console-button console-button--primary"
          disabled={isBusy}
        >
          {methodId ? "Save" : "Add method"}
        </button>
      </div>
    </Form>
  );
}
