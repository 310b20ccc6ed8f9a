// The order page's three forms, each drawn only when the order and the operator's role allow it: Mark as shipped,
// Refund (by lines or an amount, to the card or to store credit) and Cancel and refund.

import { Form } from "react-router";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import type { ConsoleOrder } from "./order-detail-types";

type Errors = Record<string, string> | undefined;

/** Carrier and tracking number; the shopper is sent the shipped e-mail. */
export function ShipForm({ errors: shipErrors, isBusy }: { errors: Errors; isBusy: boolean }) {
  return (
    <section aria-labelledby="ship-title">
      <h2 id="ship-title">Mark as shipped</h2>
      <ErrorSummary
        errors={shipErrors}
        fieldIds={fieldIdsOf(["carrier", "trackingNumber"])}
        title={CONSOLE_SUMMARY_TITLE}
      />
      <Form method="post" className="console-form console-form--inline" noValidate>
        <input type="hidden" name="intent" value="ship" />
        <div className="console-field">
          <label htmlFor="field-carrier">Carrier</label>
          <input
            id="field-carrier"
            name="carrier"
            maxLength={100}
            {...invalidFieldProps("field-carrier", shipErrors?.carrier)}
          />
          <FieldError fieldId="field-carrier" message={shipErrors?.carrier} />
        </div>
        <div className="console-field">
          <label htmlFor="field-trackingNumber">Tracking number</label>
          <input
            id="field-trackingNumber"
            name="trackingNumber"
            maxLength={100}
            {...invalidFieldProps("field-trackingNumber", shipErrors?.trackingNumber)}
          />
          <FieldError fieldId="field-trackingNumber" message={shipErrors?.trackingNumber} />
        </div>
        <button type="submit" className="console-button console-button--primary" disabled={isBusy}>
          Mark as shipped
        </button>
      </Form>
    </section>
  );
}

/** A refund by quantities per line (with their restock), shipping, or an amount alone; asked to confirm next. */
export function RefundForm({
  order,
  errors: refundErrors,
  refundKey,
  isBusy,
}: {
  order: ConsoleOrder;
  errors: Errors;
  refundKey: string;
  isBusy: boolean;
}) {
  return (
    <section aria-labelledby="refund-title">
      <h2 id="refund-title">Refund</h2>
      <ErrorSummary
        errors={refundErrors}
        fieldIds={fieldIdsOf(["amount", "reason", ...order.items.map((item) => `quantity-${item.index}`)])}
        title={CONSOLE_SUMMARY_TITLE}
      />
      <Form method="post" className="console-form" noValidate>
        <input type="hidden" name="intent" value="refund" />
        <input type="hidden" name="key" value={refundKey} />
        <table className="console-table console-refund-lines" tabIndex={0}>
          <caption className="console-hint">
            A quantity per line works out the amount; leave every quantity empty to refund an amount alone.
          </caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Quantity to refund</th>
              <th scope="col">Stock</th>
            </tr>
          </thead>
          <tbody>
            {order.items.map((item) => (
              <tr key={item.id}>
                <td>
                  {item.title}
                  <p className="console-hint">
                    {`${item.refunded} of ${item.quantity} refunded, ${item.restocked} back in stock`}
                  </p>
                </td>
                <td>
                  <label htmlFor={`field-quantity-${item.index}`} className="visually-hidden">
                    {`Quantity to refund of ${item.title}`}
                  </label>
                  <input
                    id={`field-quantity-${item.index}`}
                    name={`quantity-${item.index}`}
                    type="number"
                    inputMode="numeric"
                    min={0}
                    max={item.refundable}
                    disabled={item.refundable === 0}
                    className="console-input--narrow"
                    {...invalidFieldProps(`field-quantity-${item.index}`, refundErrors?.[`quantity-${item.index}`])}
                  />
                  <FieldError
                    fieldId={`field-quantity-${item.index}`}
                    message={refundErrors?.[`quantity-${item.index}`]}
                  />
                </td>
                <td>
                  {item.restockable > 0 ? (
                    <label>
                      <input
                        type="checkbox"
                        name={`restock-${item.index}`}
                        aria-label={`Put the items back in stock, ${item.title}`}
                      />{" "}
                      Put the items back in stock
                    </label>
                  ) : (
                    "All back in stock"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {order.shippingLeft ? (
          <div className="console-field console-field--check">
            <label>
              <input type="checkbox" name="includeShipping" /> Include shipping ({order.shippingLeft})
            </label>
          </div>
        ) : null}
        <div className="console-field">
          <label htmlFor="field-amount">Amount</label>
          <input
            id="field-amount"
            name="amount"
            inputMode="decimal"
            maxLength={20}
            placeholder={order.left}
            {...invalidFieldProps("field-amount", refundErrors?.amount, "hint-amount")}
          />
          <p id="hint-amount" className="console-hint">
            Empty: what the lines come to, or without lines everything left, {order.left}. Less, never more. You are
            asked to confirm the amount next.
          </p>
          <FieldError fieldId="field-amount" message={refundErrors?.amount} />
        </div>
        <div className="console-field">
          <label htmlFor="field-reason">Reason (optional)</label>
          <input
            id="field-reason"
            name="reason"
            maxLength={200}
            {...invalidFieldProps("field-reason", refundErrors?.reason)}
          />
          <FieldError fieldId="field-reason" message={refundErrors?.reason} />
        </div>
        <div className="console-actions">
          <button type="submit" className="console-button" disabled={isBusy}>
            Refund
          </button>
          {order.hasAccount ? (
            <button type="submit" name="destination" value="store_credit" className="console-button" disabled={isBusy}>
              Refund to store credit
            </button>
          ) : null}
        </div>
      </Form>
    </section>
  );
}

/** Cancels the order and refunds everything left, optionally putting every item back in stock. */
export function CancelForm({
  order,
  errors: cancelErrors,
  cancelKey,
  isBusy,
}: {
  order: ConsoleOrder;
  errors: Errors;
  cancelKey: string;
  isBusy: boolean;
}) {
  // A $0.00 order (a replacement, or one a code or balances paid) has nothing to refund: the form says what it does.
  const title = order.hasMoneyLeft ? "Cancel and refund" : "Cancel the order";
  return (
    <section aria-labelledby="cancel-title">
      <h2 id="cancel-title">{title}</h2>
      <ErrorSummary errors={cancelErrors} fieldIds={{}} title={CONSOLE_SUMMARY_TITLE} />
      <Form method="post">
        <input type="hidden" name="intent" value="cancel-and-refund" />
        <input type="hidden" name="key" value={cancelKey} />
        <p className="console-hint">
          {order.hasMoneyLeft
            ? `Cancels the order and refunds everything left, ${order.left}.`
            : "Cancels the order. Nothing paid is left to refund."}
        </p>
        {order.items.some((item) => item.restockable > 0) ? (
          <div className="console-field console-field--check">
            <label>
              <input type="checkbox" name="restock" /> Put the items back in stock
            </label>
          </div>
        ) : null}
        <button type="submit" className="console-button" disabled={isBusy}>
          {title}
        </button>
      </Form>
    </section>
  );
}
