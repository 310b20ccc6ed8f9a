import { data, Form, Link, useNavigation } from "react-router";
import type { Route } from "./+types/order-detail";
import { adminOrderActionSchema } from "#shared/admin-order-schemas";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { addressLines } from "#shared/address";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { formatCents } from "#shared/money";
import {
  cardBrandName,
  PAYMENT_BY_PROMOTION,
  describeItemOptions,
  FULFILMENT_STATUS_LABELS,
  ORDER_STATUS_LABELS,
  PAYMENT_STATUS_LABELS,
  orderAllows,
  orderLineAmounts,
} from "#shared/orders";
import { breakdownLines } from "#shared/pricing";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { mayUse } from "#shared/console-access";
import { PageHeader, StatusBadge } from "#app/features/admin/console-ui";

export async function loader({ context, params }: Route.LoaderArgs) {
  const { services, access } = requireConsole(context, "routes/admin/order-detail");
  const may = (intent: string) => mayUse(access, "routes/admin/order-detail", intent);
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const order = await services.adminOrders.getOrder(params.number);
  if (!order) throw data(null, { status: 404 });
  const left = order.amountCents - order.refundedCents;
  const lineAmounts = orderLineAmounts(order.items, order.pricing);
  const state = { paymentStatus: order.paymentStatus, fulfilmentStatus: order.fulfilmentStatus };
  return {
    number: order.number,
    replacesReturnNumber: order.replacesReturnNumber,
    payment: { key: order.paymentStatus, label: PAYMENT_STATUS_LABELS[order.paymentStatus] },
    fulfilment: { key: order.fulfilmentStatus, label: FULFILMENT_STATUS_LABELS[order.fulfilmentStatus] },
    canShip: orderAllows(state, "ship") && may("ship"),
    canCancel: orderAllows(state, "cancel") && may("cancel-and-refund"),
    canRefund: left > 0 && orderAllows(state, "refund") && may("refund"),
    /** Shipping with its tax, as charged, while it has not been given back (a refund's "Include shipping"). */
    shippingLeft: order.refundableShippingCents > 0 ? formatCents(order.refundableShippingCents) : null,
    total: formatCents(order.amountCents),
    refunded: formatCents(order.refundedCents),
    left: formatCents(left),
    paidAt: formatConsoleTime(order.paidAt, timeZone),
    email: order.contactEmail ?? "–",
    address: order.deliveryAddress ? addressLines(order.deliveryAddress) : [],
    items: order.items.map((item, index) => ({
      index,
      id: `${index}-${item.variantId ?? item.productId}`,
      refundable: item.quantity - item.refundedQuantity,
      restockable: item.quantity - item.restockedQuantity,
      refunded: item.refundedQuantity,
      restocked: item.restockedQuantity,
      title: describeItemOptions(item)
        ? `${item.title} (${describeItemOptions(item)})${item.sku ? `, SKU ${item.sku}` : ""}`
        : item.title,
      quantity: item.quantity,
      price: formatCents(item.priceCents),
      line: formatCents(lineAmounts[index] ?? 0),
    })),
    breakdown: order.pricing ? breakdownLines(order.pricing, formatCents) : [],
    paidWith: {
      card: order.replacesReturnNumber
        ? "None (replacement)"
        : order.processor === "none"
          ? PAYMENT_BY_PROMOTION
          : order.card
            ? `${order.card.brand} ending ${order.card.last4}`
            : "–",
      intentId: order.id,
      processor: order.processor ?? "–",
      mode: order.isTest ? "Test" : "Live",
    },
    history: order.history.map((entry, index) => ({
      key: index,
      at: formatConsoleTime(entry.created_at, timeZone),
      status: ORDER_STATUS_LABELS[entry.status],
      who: entry.actor,
      detail: [
        entry.carrier ? `${entry.carrier} ${entry.tracking_number ?? ""}`.trim() : "",
        entry.amount_cents ? formatCents(entry.amount_cents) : "",
        entry.note ?? "",
      ]
        .filter(Boolean)
        .join(" · "),
    })),
    hasAccount: order.hasAccount,
    // A fresh key each time the forms are drawn: the same form submitted twice refunds once.
    refundKey: crypto.randomUUID(),
  };
}

/**
 * `key`: a refused refund form is drawn again with its key, so sending it again cannot make a second refund.
 * `confirm`: a refund form's first sending only asks, naming the amount and the card; the answer carries the form's
 * fields on (`fields`), and the amount can be changed there, down only.
 */
type ActionAnswer = {
  form: "ship" | "refund" | "cancel-and-refund" | null;
  errors: Record<string, string> | undefined;
  done: string | null;
  key?: string;
  confirm?: {
    question: string;
    button: string;
    /** What the refund gives back, in words ("1 × Cotton tee, put back in stock"). */
    details: string[];
    fields: [string, string][];
    /** The amount as typed in the confirmation's own field; null for Cancel and refund. */
    amount: string | null;
  };
};

/** The refund form's fields, as the confirmation carries them on. */
/** "Gift card ending 7XQ2" as it reads inside a sentence. */
function lowerFirst(label: string): string {
  return label.charAt(0).toLowerCase() + label.slice(1);
}

function refundFields(input: {
  lines: { index: number; quantity: number; restock: boolean }[];
  includeShipping: boolean;
  destination: "card" | "store_credit";
  reason: string | null;
}): [string, string][] {
  return [
    ...(input.destination === "store_credit" ? [["destination", "store_credit"] as [string, string]] : []),
    ...input.lines.flatMap((line): [string, string][] => [
      [`quantity-${line.index}`, String(line.quantity)],
      ...(line.restock ? [[`restock-${line.index}`, "on"] as [string, string]] : []),
    ]),
    ...(input.includeShipping ? [["includeShipping", "on"] as [string, string]] : []),
    ...(input.reason ? [["reason", input.reason] as [string, string]] : []),
  ];
}

/** Ship, refund, or cancel and refund: each one service call; a refusal reads as a sentence by its field. */
export async function action({ context, request, params }: Route.ActionArgs) {
  // Nobody who may not open the page gets their form read; the button pressed decides the rest.
  requireConsole(context, "routes/admin/order-detail");
  const fields = await readFormOrRefuse(request);
  const { services, actor } = requireConsole(context, "routes/admin/order-detail", fields.intent ?? null);
  const intent =
    fields.intent === "ship" || fields.intent === "refund" || fields.intent === "cancel-and-refund"
      ? fields.intent
      : null;
  const parsed = adminOrderActionSchema.safeParse(fields);
  if (!parsed.success)
    return data<ActionAnswer>(
      {
        form: intent,
        errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }),
        done: null,
        key: typeof fields.key === "string" ? fields.key : undefined,
      },
      { status: 400 },
    );
  const input = parsed.data;
  try {
    if (input.intent !== "ship" && input.confirmed !== "yes") {
      const order = await services.adminOrders.getOrder(params.number);
      if (!order) throw data(null, { status: 404 });
      const card = order.card
        ? `${cardBrandName(order.card.brand)} ending in ${order.card.last4}`
        : "the card it was paid with";
      if (input.intent === "refund") {
        const quote = await services.adminOrders.quoteRefund(params.number, {
          amountCents: input.amount,
          lines: input.lines,
          includeShipping: input.includeShipping,
          reason: input.reason,
        });
        const amount = formatCents(quote.amountCents);
        // A gift card or store credit that paid part of the order gets its part back first, the card the rest.
        const destinations =
          input.destination === "store_credit"
            ? [{ to: "store credit", amountCents: quote.amountCents }]
            : [
                ...quote.toBalances.map((back) => ({ to: lowerFirst(back.label), amountCents: back.amountCents })),
                ...(quote.toCardCents > 0 || quote.toBalances.length === 0
                  ? [{ to: card, amountCents: quote.toCardCents }]
                  : []),
              ];
        const confirm = {
          question:
            destinations.length === 1
              ? `Refund ${amount} to ${destinations[0]!.to}?`
              : `Refund ${amount}: ${destinations.map((part) => `${formatCents(part.amountCents)} to ${part.to}`).join(" and ")}?`,
          button: `Refund ${amount}`,
          details: [
            ...quote.lines.map(
              (line) =>
                `${line.quantity} × ${line.title}${line.restock > 0 ? `, ${line.restock} put back in stock` : ""}`,
            ),
            ...(quote.shippingCents > 0 ? [`Shipping, ${formatCents(quote.shippingCents)}`] : []),
            ...(quote.giftCardsDisabled > 0
              ? [
                  quote.giftCardsDisabled === 1
                    ? "The gift card it bought will be disabled: what is left on it comes back."
                    : `The ${quote.giftCardsDisabled} gift cards it bought will be disabled: what is left on them comes back.`,
                ]
              : []),
            ...(quote.lines.length === 0 && quote.shippingCents === 0
              ? ["An amount alone: no items go back in stock."]
              : []),
            ...(quote.amountCents < quote.ceilingCents
              ? [`Less than the ${formatCents(quote.ceilingCents)} worked out.`]
              : []),
          ],
          fields: refundFields(input),
          amount: (quote.amountCents / 100).toFixed(2),
        };
        return { form: input.intent, errors: undefined, done: null, key: input.key, confirm } satisfies ActionAnswer;
      }
      const leftCents = order.amountCents - order.refundedCents;
      const amount = formatCents(leftCents);
      const confirm = {
        question:
          leftCents > 0
            ? `Cancel order ${order.number} and refund ${amount} to ${card}?`
            : `Cancel order ${order.number}?`,
        button: leftCents > 0 ? `Cancel and refund ${amount}` : "Cancel the order",
        details: input.restock ? ["Every item not yet back goes back in stock."] : [],
        fields: input.restock ? ([["restock", "on"]] as [string, string][]) : [],
        amount: null,
      };
      return { form: input.intent, errors: undefined, done: null, key: input.key, confirm } satisfies ActionAnswer;
    }
    if (input.intent === "ship") {
      await services.adminOrders.markShipped(actor, params.number, {
        carrier: input.carrier,
        trackingNumber: input.trackingNumber,
      });
      return {
        form: input.intent,
        errors: undefined,
        done: "Marked as shipped. The shopper is sent the shipped e-mail.",
      } satisfies ActionAnswer;
    }
    if (input.intent === "refund") {
      const refund = await services.adminOrders.refund(actor, params.number, {
        amountCents: input.amount,
        idempotencyKey: input.key,
        lines: input.lines,
        includeShipping: input.includeShipping,
        destination: input.destination,
        reason: input.reason,
      });
      const done =
        refund.amountCents > 0
          ? `Refunded ${formatCents(refund.amountCents)}. The shopper is sent the refund e-mail.`
          : "The refund is pending at the processor.";
      return { form: input.intent, errors: undefined, done } satisfies ActionAnswer;
    }
    const refund = await services.adminOrders.cancelAndRefund(actor, params.number, input.key, {
      restock: input.restock,
    });
    return {
      form: input.intent,
      errors: undefined,
      done: refund.amountCents > 0 ? `Cancelled and refunded ${formatCents(refund.amountCents)}.` : "Cancelled.",
    } satisfies ActionAnswer;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "NOT_FOUND") throw data(null, { status: 404 });
    const named = typeof error.details?.field === "string" ? error.details.field : "form";
    const field = named === "amount" || /^quantity-\d+$/.test(named) ? named : "form";
    return data<ActionAnswer>(
      {
        form: input.intent,
        errors: { [field]: error.message },
        done: null,
        key: "key" in input ? input.key : undefined,
      },
      { status: error.status },
    );
  }
}

/** The refund form's fields, carried on by the confirmation's forms as hidden inputs. */
function CarriedFields({ fields }: { fields: [string, string][] }) {
  return fields.map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />);
}

export default function AdminOrder({ loaderData, actionData }: Route.ComponentProps) {
  const order = loaderData;
  const navigation = useNavigation();
  const isBusy = navigation.state === "submitting";
  const errorsOf = (form: ActionAnswer["form"]) => (actionData?.form === form ? actionData.errors : undefined);
  const shipErrors = errorsOf("ship");
  const refundErrors = errorsOf("refund");
  const cancelErrors = errorsOf("cancel-and-refund");
  const keyOf = (form: ActionAnswer["form"]) =>
    actionData?.form === form && "key" in actionData ? actionData.key : undefined;
  const refundKey = keyOf("refund") ?? order.refundKey;
  const cancelKey = keyOf("cancel-and-refund") ?? `${order.refundKey}-cancel`;
  const confirm =
    actionData?.confirm && actionData.key
      ? { ...actionData.confirm, form: actionData.form, key: actionData.key }
      : null;
  if (confirm) {
    return (
      <main id="main" className="console-main">
        <title>{`Confirm | Order ${order.number} | Console`}</title>
        <p className="console-breadcrumb">
          <Link to="/admin/orders">Orders</Link> / <Link to={`/admin/orders/${order.number}`}>{order.number}</Link>
        </p>
        <section className="console-confirm" aria-labelledby="confirm-title">
          <h1 id="confirm-title">{confirm.question}</h1>
          {confirm.details.length > 0 ? (
            <ul>
              {confirm.details.map((detail) => (
                <li key={detail}>{detail}</li>
              ))}
            </ul>
          ) : null}
          <p>The money goes back to the shopper at once and cannot be taken back; the shopper is sent an e-mail.</p>
          <Form method="post" className="console-actions">
            <input type="hidden" name="intent" value={confirm.form ?? ""} />
            <input type="hidden" name="key" value={confirm.key} />
            <CarriedFields fields={confirm.fields} />
            {confirm.amount !== null ? <input type="hidden" name="amount" value={confirm.amount} /> : null}
            <input type="hidden" name="confirmed" value="yes" />
            <button type="submit" className="console-button console-button--danger" disabled={isBusy}>
              {confirm.button}
            </button>
            <Link to={`/admin/orders/${order.number}`} className="console-button">
              Keep the money, go back
            </Link>
          </Form>
          {confirm.amount !== null ? (
            <Form method="post" className="console-form console-form--inline" noValidate>
              <input type="hidden" name="intent" value="refund" />
              <input type="hidden" name="key" value={confirm.key} />
              <CarriedFields fields={confirm.fields} />
              <div className="console-field">
                <label htmlFor="field-confirm-amount">Refund less</label>
                <input
                  id="field-confirm-amount"
                  name="amount"
                  inputMode="decimal"
                  maxLength={20}
                  defaultValue={confirm.amount}
                  aria-describedby="hint-confirm-amount"
                />
                <p id="hint-confirm-amount" className="console-hint">
                  At most what is worked out; you are asked again with the new amount.
                </p>
              </div>
              <button type="submit" className="console-button" disabled={isBusy}>
                Change the amount
              </button>
            </Form>
          ) : null}
        </section>
      </main>
    );
  }
  return (
    <main id="main" className="console-main">
      <title>{`Order ${order.number} | Console`}</title>
      <p className="console-breadcrumb">
        <Link to="/admin/orders">Orders</Link>
      </p>
      <PageHeader title={`Order ${order.number}`} />
      <p className="console-notice" role="status">
        {actionData?.done ?? ""}
      </p>
      <dl className="console-facts">
        <dt>Payment</dt>
        <dd>
          <StatusBadge status={order.payment.key} label={order.payment.label} />
        </dd>
        <dt>Fulfilment</dt>
        <dd>
          <StatusBadge status={order.fulfilment.key} label={order.fulfilment.label} />
        </dd>
        {order.replacesReturnNumber ? (
          <>
            <dt>Replaces</dt>
            <dd>
              <Link to={`/admin/returns/${order.replacesReturnNumber}`}>{`Return ${order.replacesReturnNumber}`}</Link>
            </dd>
          </>
        ) : null}
        <dt>Paid</dt>
        <dd>{order.paidAt}</dd>
        <dt>Total</dt>
        <dd>{order.total}</dd>
        <dt>Refunded</dt>
        <dd>{order.refunded}</dd>
        <dt>E-mail</dt>
        <dd>{order.email}</dd>
        <dt>Deliver to</dt>
        <dd>{order.address.length ? order.address.join(", ") : "–"}</dd>
        <dt>Card</dt>
        <dd>{order.paidWith.card}</dd>
        <dt>Payment intent</dt>
        <dd>
          <code>{order.paidWith.intentId}</code> · {order.paidWith.processor} · {order.paidWith.mode}
        </dd>
      </dl>

      <h2>Items</h2>
      <table className="console-table" tabIndex={0}>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" className="console-number">
              Quantity
            </th>
            <th scope="col" className="console-number">
              Price
            </th>
            <th scope="col" className="console-number">
              Line
            </th>
          </tr>
        </thead>
        <tbody>
          {order.items.map((item) => (
            <tr key={item.id}>
              <td>{item.title}</td>
              <td className="console-number">{item.quantity}</td>
              <td className="console-number">{item.price}</td>
              <td className="console-number">{item.line}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          {order.breakdown.map((line) => (
            <tr key={line.label} data-testid="order-breakdown">
              <th scope="row" colSpan={3}>
                {line.label}
              </th>
              <td className="console-number">{line.value}</td>
            </tr>
          ))}
          <tr>
            <th scope="row" colSpan={3}>
              Order Total
            </th>
            <td className="console-number" data-testid="order-total">
              {order.total}
            </td>
          </tr>
        </tfoot>
      </table>

      <h2>History</h2>
      <table className="console-table" tabIndex={0}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Status</th>
            <th scope="col">Who</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {order.history.map((entry) => (
            <tr key={entry.key}>
              <td>{entry.at}</td>
              <td>{entry.status}</td>
              <td>{entry.who}</td>
              <td>{entry.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>

      {order.canShip ? (
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
      ) : null}

      {order.canRefund ? (
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
                <button
                  type="submit"
                  name="destination"
                  value="store_credit"
                  className="console-button"
                  disabled={isBusy}
                >
                  Refund to store credit
                </button>
              ) : null}
            </div>
          </Form>
        </section>
      ) : null}

      {order.canCancel ? (
        <section aria-labelledby="cancel-title">
          <h2 id="cancel-title">Cancel and refund</h2>
          <ErrorSummary errors={cancelErrors} fieldIds={{}} title={CONSOLE_SUMMARY_TITLE} />
          <Form method="post">
            <input type="hidden" name="intent" value="cancel-and-refund" />
            <input type="hidden" name="key" value={cancelKey} />
            <p className="console-hint">Cancels the order and refunds everything left, {order.left}.</p>
            {order.items.some((item) => item.restockable > 0) ? (
              <div className="console-field console-field--check">
                <label>
                  <input type="checkbox" name="restock" /> Put the items back in stock
                </label>
              </div>
            ) : null}
            <button type="submit" className="console-button" disabled={isBusy}>
              Cancel and refund
            </button>
          </Form>
        </section>
      ) : null}
    </main>
  );
}
