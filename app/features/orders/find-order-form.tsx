// "Find an order": a guest's way to their order by its number and receipt e-mail.

import { Form } from "react-router";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import type { FieldErrors } from "#shared/form-errors";
import { ErrorSummary } from "#app/components/form/error-summary";

/** "Find an order" on /returns: a guest's way to their order (and its returns) by its number and receipt e-mail. */
export function FindOrderForm({ errors, values }: { errors?: FieldErrors; values?: Record<string, string> }) {
  const fieldIds = { orderNumber: "find-order-number", email: "find-order-email", form: "find-order-number" };
  return (
    <section className="find-order" aria-labelledby="find-order-heading">
      <h2 id="find-order-heading">Find an order</h2>
      <p id="find-order-hint">
        Enter your order number (it is in your order e-mails, like SF-2611-8K3Q) and the e-mail address your receipt
        went to.
      </p>
      <Form method="post" className="find-order__form" aria-describedby="find-order-hint">
        <ErrorSummary errors={errors} fieldIds={fieldIds} />
        <div className="find-order__field">
          <label htmlFor="find-order-number">Order number</label>
          <input
            id="find-order-number"
            name="orderNumber"
            autoComplete="off"
            defaultValue={values?.orderNumber ?? ""}
            {...invalidFieldProps("find-order-number", errors?.orderNumber ?? errors?.form)}
          />
          <FieldError fieldId="find-order-number" message={errors?.orderNumber ?? errors?.form} />
        </div>
        <div className="find-order__field">
          <label htmlFor="find-order-email">E-mail</label>
          <input
            id="find-order-email"
            name="email"
            type="email"
            autoComplete="email"
            defaultValue={values?.email ?? ""}
            {...invalidFieldProps("find-order-email", errors?.email)}
          />
          <FieldError fieldId="find-order-email" message={errors?.email} />
        </div>
        <button type="submit" className="button">
          Find an order
        </button>
      </Form>
    </section>
  );
}
