// Step 3 of checkout: reuse, update or replace the payment's open intent at the processor for the quoted amount, and
// write the checkout_payments row against the basket's claim.

import { randomUUID } from "node:crypto";
import { sql, type Insertable } from "kysely";
import { toStripeShipping } from "#shared/address";
import type { BasketView } from "#shared/basket";
import { amountDue, type PriceBreakdown } from "#shared/pricing";
import { ownerColumn, ownerColumns, perOwnerColumn, type BasketOwner } from "#server/basket/basket-owner";
import { preparedStatement } from "@storefront/kysely-prepared";
import type { CheckoutPaymentTable } from "#server/db/schema";
import type { Holder } from "#server/holds/hold-claims";
import { isIntentStateRefusal } from "#server/payments/processor-errors";
import type { PromotionCustomer } from "#server/promotions/promotion-service";
import { metadataFor, snapshot, type CheckoutContext, type Delivery } from "./checkout-context";
import type { HoldStep } from "./hold-step";
import type { ReleaseStep } from "./release-step";

/** What the browser confirms the card against: the intent's client secret and its amount. */
export interface PreparedPayment {
  clientSecret: string;
  amountCents: number;
  /** What the card should pay for the basket as priced now: the total less the balances applied. */
  dueCents?: number;
}

/** One pass's snapshot of the payment: what it is for, in cents, for whom, and its row's delivery columns. */
interface PaymentDraft {
  owner: BasketOwner;
  view: BasketView;
  pricing: PriceBreakdown;
  customer: PromotionCustomer;
  holder: Holder | undefined;
  items: ReturnType<typeof snapshot>["items"];
  fingerprint: string;
  amountCents: number;
  shipping: ReturnType<typeof toStripeShipping>;
  deliveryColumns: { delivery_address: string; contact_email: string | null };
}

/** The owner's newest open payment of this processor, as a pass reads it. */
interface OpenPayment {
  payment_intent_id: string;
  client_secret: string;
  basket_fingerprint: string;
  pending_fingerprint: string | null;
  amount_cents: number;
  revision: number;
}

/**
 * The owner's newest open payment here, and how many payments the owner has made in all (the next intent's key). One
 * statement per owner column, built and compiled once: every payment step reads it.
 */
function newestPaymentReader({ db, processor, livemode }: CheckoutContext) {
  const readBy = (column: "user_id" | "session_id") =>
    preparedStatement(
      db,
      ["owner", "processor", "livemode"],
      (db, values: { owner: string; processor: string; livemode: boolean }) => {
        const isOpenHere = sql<boolean>`(status = 'open' and processor = ${values.processor} and livemode = ${values.livemode})`;
        return db
          .selectFrom("checkout_payments")
          .select([
            "payment_intent_id",
            "client_secret",
            "basket_fingerprint",
            "pending_fingerprint",
            "amount_cents",
            "revision",
          ])
          .select([isOpenHere.as("is_open_here"), sql<number>`count(*) over ()::int`.as("attempts")])
          .where(column, "=", values.owner)
          .orderBy(isOpenHere, "desc")
          .orderBy("created_at", "desc")
          .limit(sql.lit(1));
      },
    );
  const byColumn = perOwnerColumn(readBy);
  return async (owner: BasketOwner) => {
    const { column, value } = ownerColumn(owner);
    const [newest] = (await byColumn[column]({ owner: value, processor, livemode })).rows;
    return { open: newest?.is_open_here ? (newest as OpenPayment) : undefined, attempts: newest?.attempts ?? 0 };
  };
}

const NEW_PAYMENT_COLUMNS = [
  "payment_intent_id",
  "user_id",
  "session_id",
  "client_secret",
  "amount_cents",
  "currency",
  "basket_fingerprint",
  "items",
  "pricing",
  "delivery_address",
  "contact_email",
  "processor",
  "livemode",
] as const satisfies readonly (keyof CheckoutPaymentTable)[];

/** An open payment's row, as a new intent's is written. */
type NewPaymentRow = Required<Pick<Insertable<CheckoutPaymentTable>, (typeof NEW_PAYMENT_COLUMNS)[number]>>;

/** The new intent's row (an open payment), built and compiled once: every checkout writes one. */
function newPaymentWriter({ db }: CheckoutContext) {
  return preparedStatement(db, NEW_PAYMENT_COLUMNS, (db, row: NewPaymentRow) =>
    db
      .insertInto("checkout_payments")
      .values({ ...row, status: sql.lit("open") })
      .onConflict((conflict) => conflict.column("payment_intent_id").doNothing()),
  );
}

type NewPaymentWriter = ReturnType<typeof newPaymentWriter>;

/**
 * A new intent and its row. The hold is taken before the intent exists, under a key of its own, and becomes the
 * intent's once its row is written; a replaced intent's hold goes in the same step. Short stock: no intent is
 * created. Undo: a failed creation releases that hold.
 */
async function createNew(
  { provider, processor, livemode }: CheckoutContext,
  { hold, release, insertPayment }: { hold: HoldStep; release: ReleaseStep; insertPayment: NewPaymentWriter },
  draft: PaymentDraft,
  replaced: readonly string[],
  attempts: number,
): Promise<PreparedPayment> {
  const key = `new:${randomUUID()}`;
  const { view, pricing, customer, holder, owner, fingerprint } = draft;
  const held = await hold.take({ key, view, pricing, customer, holder, replaces: replaced, isNew: true });
  const { column, value } = ownerColumn(owner);
  // The same owner, basket and attempt always ask for the same intent: two tabs racing get one intent. Intents for
  // different baskets are different intents, each with its own row, so they cannot cross.
  const intent = await provider
    .createIntent({
      amountCents: draft.amountCents,
      metadata: metadataFor(owner, fingerprint, pricing),
      shipping: draft.shipping,
      idempotencyKey: `storefront:${column}:${value}:${fingerprint}:${attempts}`,
    })
    .catch(async (error: unknown) => {
      await release.releaseHold(key);
      throw error;
    });
  await insertPayment({
    payment_intent_id: intent.id,
    ...ownerColumns(owner),
    client_secret: intent.clientSecret,
    amount_cents: intent.amountCents,
    currency: intent.currency,
    basket_fingerprint: fingerprint,
    items: JSON.stringify(draft.items),
    pricing: JSON.stringify(pricing),
    ...draft.deliveryColumns,
    processor,
    livemode,
  });
  await hold.rename(key, intent.id, held);
  return { clientSecret: intent.clientSecret, amountCents: intent.amountCents };
}

/**
 * Step 3 of checkout, create intent: the processor's payment intent for exactly the quoted amount, and the
 * checkout_payments row that says which snapshot it was set for. An open intent is reused or updated while it can be;
 * one the processor no longer lets change is cancelled and replaced (that cancel is this step's undo of the old one).
 * A failure to create the new intent releases the hold taken for it. No database transaction is ever held across a
 * call to the processor.
 */
export function createIntentStep(context: CheckoutContext, hold: HoldStep, release: ReleaseStep) {
  const { db, provider } = context;
  const readNewest = newestPaymentReader(context);
  const insertPayment = newPaymentWriter(context);

  /**
   * The open intent brought to this pass's snapshot: the same intent again, or updated in place. Null when another
   * call took the row meanwhile; "replace" when the processor no longer lets the intent change (it is then cancelled
   * and its row marked replaced).
   */
  async function updateOpen(
    open: OpenPayment,
    draft: PaymentDraft,
    mustUpdateProcessor: boolean,
  ): Promise<PreparedPayment | null | "replace"> {
    const key = open.payment_intent_id;
    const held = { key, view: draft.view, pricing: draft.pricing, customer: draft.customer, holder: draft.holder };
    const isSettled = open.pending_fingerprint === null;
    if (isSettled && open.basket_fingerprint === draft.fingerprint && !mustUpdateProcessor) {
      // The same intent again: its hold is taken again, or refused if the stock went.
      await hold.renew(held);
      return { clientSecret: open.client_secret, amountCents: open.amount_cents };
    }
    // Before the intent changes: short stock, or a code used up meanwhile, is refused with the intent as it was.
    await hold.renew(held);
    const claimed = await db
      .updateTable("checkout_payments")
      .set({ pending_fingerprint: draft.fingerprint, revision: open.revision + 1, updated_at: sql`now()` })
      .where("payment_intent_id", "=", key)
      .where("status", "=", "open")
      .where("revision", "=", open.revision)
      .executeTakeFirst();
    if (claimed.numUpdatedRows === 0n) return null;
    // The amount and the fingerprint change in the same processor call, so the intent always says which snapshot
    // its amount belongs to.
    // Only the processor's refusal for the intent's state (being authenticated, paid, cancelled, gone) makes a new
    // intent. A timeout or a fault of the processor's is the shopper's error to retry: the claim stays pending, so
    // the next attempt updates this intent again rather than leaving a second one open beside it.
    const updated = await provider
      .updateIntent(key, {
        amountCents: draft.amountCents,
        metadata: metadataFor(draft.owner, draft.fingerprint, draft.pricing),
        shipping: draft.shipping,
      })
      .catch((error: unknown) => {
        if (isIntentStateRefusal(error)) return null;
        throw error;
      });
    if (!updated) {
      await release.replaceIntent(key);
      return "replace";
    }
    const written = await db
      .updateTable("checkout_payments")
      .set({
        amount_cents: draft.amountCents,
        basket_fingerprint: draft.fingerprint,
        pending_fingerprint: null,
        items: JSON.stringify(draft.items),
        pricing: JSON.stringify(draft.pricing),
        ...draft.deliveryColumns,
        revision: open.revision + 2,
        updated_at: sql`now()`,
      })
      .where("payment_intent_id", "=", key)
      .where("status", "=", "open")
      .where("revision", "=", open.revision + 1)
      .executeTakeFirst();
    if (written.numUpdatedRows === 0n) return null;
    return { clientSecret: open.client_secret, amountCents: updated.amountCents };
  }

  /**
   * One pass of preparing a payment; null when another call for the same shopper changed the payment row under this
   * one. A re-pricing first claims the row (compare-and-set on its revision, marking it pending), then updates the
   * processor, then writes the row (compare-and-set on its claim). A claim taken over by another call means that
   * call's processor update may have landed before this one's, so the processor may hold this pass's basket while
   * the row holds the other's: the caller goes round again, and the next pass writes the processor whatever the
   * row says (`mustUpdateProcessor`). A pending row is never taken as settled, even when its fingerprint matches.
   */
  async function preparePaymentOnce(
    owner: BasketOwner,
    view: BasketView,
    delivery: Delivery,
    pricing: PriceBreakdown,
    mustUpdateProcessor: boolean,
    holder: Holder | undefined,
  ): Promise<PreparedPayment | null> {
    const { items, fingerprint } = snapshot(view, delivery, pricing);
    const draft: PaymentDraft = {
      owner,
      view,
      pricing,
      customer: { owner, email: delivery.contactEmail },
      holder,
      items,
      fingerprint,
      // What the card pays: the total less the balances applied (store credit, gift cards).
      amountCents: amountDue(pricing),
      shipping: toStripeShipping(delivery.address),
      deliveryColumns: { delivery_address: JSON.stringify(delivery.address), contact_email: delivery.contactEmail },
    };
    const { open, attempts } = await readNewest(owner);
    if (open) {
      const updated = await updateOpen(open, draft, mustUpdateProcessor);
      if (updated !== "replace") return updated;
      // Not updatable any more (being authenticated, or already paid): it was left to its fate; start afresh.
    }
    return createNew(context, { hold, release, insertPayment }, draft, open ? [open.payment_intent_id] : [], attempts);
  }

  return { preparePaymentOnce };
}
