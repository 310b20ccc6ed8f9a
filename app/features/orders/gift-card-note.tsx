// How an order shows each gift card it sold: to whom and when it is sent, never its number.

import { formatOrderDate } from "#shared/dates";

/** One gift card of an order as the shop keeps its sending (server/gift-cards): never its number. */
export interface GiftCardDelivery {
  lineIndex: number;
  recipient: string;
  /** "Send on": YYYY-MM-DD in the shop's time zone; null: when the order was paid. */
  sendOn: string | null;
  deliveredAt: Date | null;
  cancelled: boolean;
}

/** "January 1st 2099" from "2099-01-01": the day alone, as the shopper chose it. */
function dayText(day: string): string {
  return formatOrderDate(new Date(`${day}T00:00:00Z`), "UTC").replace(/,.*$/, "");
}

function noteOf(delivery: GiftCardDelivery): string {
  if (delivery.deliveredAt) return `Sent to ${delivery.recipient}`;
  if (delivery.cancelled) return `Cancelled: not sent to ${delivery.recipient}`;
  if (delivery.sendOn) return `Will be sent to ${delivery.recipient} on ${dayText(delivery.sendOn)}`;
  return `Will be sent to ${delivery.recipient} shortly`;
}

/**
 * What the buyer's order page says under each gift card line, by the line's index: "Sent to {e-mail}", or the day it
 * will be. A line of several cards to one recipient says each different thing once.
 */
export function giftCardNotes(deliveries: readonly GiftCardDelivery[]): Record<number, string[]> {
  const notes: Record<number, string[]> = {};
  for (const delivery of deliveries) {
    const line = (notes[delivery.lineIndex] ??= []);
    const note = noteOf(delivery);
    if (!line.includes(note)) line.push(note);
  }
  return notes;
}

export function GiftCardNote({ notes }: { notes: readonly string[] | undefined }) {
  if (!notes?.length) return null;
  return (
    <span className="order-page__gift-card" data-testid="order-gift-card">
      {notes.map((note) => (
        <span key={note}>
          <br />
          {note}
        </span>
      ))}
    </span>
  );
}
