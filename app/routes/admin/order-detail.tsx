// /admin/orders/{number}: one order in full, and its ship, refund and cancel forms (a refund asks first, on a page of
// its own).

import { data, Link, useNavigation } from "react-router";
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
import { formatConsoleTime, requireConsole } from "./require-operator";
import { mayUse } from "#shared/console-access";
import { PageHeader } from "#app/features/admin/console-ui";
import type { OrderActionAnswer } from "#app/features/admin/order-detail/order-detail-types";
import { RefundConfirmation } from "#app/features/admin/order-detail/refund-confirmation";
import { OrderFacts, OrderHistory, OrderItems } from "#app/features/admin/order-detail/order-summary";
import { CancelForm, RefundForm, ShipForm } from "#app/features/admin/order-detail/order-forms";

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
    hasMoneyLeft: left > 0,
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

type ActionAnswer = OrderActionAnswer;

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

export default function AdminOrder({ loaderData, actionData }: Route.ComponentProps) {
  const order = loaderData;
  const navigation = useNavigation();
  const isBusy = navigation.state === "submitting";
  const errorsOf = (form: ActionAnswer["form"]) => (actionData?.form === form ? actionData.errors : undefined);
  const keyOf = (form: ActionAnswer["form"]) =>
    actionData?.form === form && "key" in actionData ? actionData.key : undefined;
  const confirm =
    actionData?.confirm && actionData.key
      ? { ...actionData.confirm, form: actionData.form, key: actionData.key }
      : null;
  if (confirm) return <RefundConfirmation number={order.number} confirm={confirm} isBusy={isBusy} />;
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
      <OrderFacts order={order} />
      <OrderItems order={order} />
      <OrderHistory history={order.history} />
      {order.canShip ? <ShipForm errors={errorsOf("ship")} isBusy={isBusy} /> : null}
      {order.canRefund ? (
        <RefundForm
          order={order}
          errors={errorsOf("refund")}
          refundKey={keyOf("refund") ?? order.refundKey}
          isBusy={isBusy}
        />
      ) : null}
      {order.canCancel ? (
        <CancelForm
          order={order}
          errors={errorsOf("cancel-and-refund")}
          cancelKey={keyOf("cancel-and-refund") ?? `${order.refundKey}-cancel`}
          isBusy={isBusy}
        />
      ) : null}
    </main>
  );
}
