// The console's gift cards as a table (never a card's number: its last four, value, balance, dates and status), each
// with "Disable" and "Adjust" (an amount in or out, with a note).

import { Form } from "react-router";
import { StatusBadge } from "#app/features/admin/console-ui";
import { ConsoleField } from "#app/features/admin/console-field";

const STATUS_LABELS = { active: "Active", used: "Used up", expired: "Expired", disabled: "Disabled" } as const;

type Refused = { form: string; errors: Record<string, string>; values: Record<string, string> } | null;

/** A card as the loader words it. */
export interface GiftCardRow {
  id: string;
  name: string;
  lastFour: string;
  source: string;
  initial: string;
  balance: string;
  issued: string;
  expires: string;
  status: keyof typeof STATUS_LABELS;
}

/** The table; `refused(card)` is a refused Adjust of that card, drawn again open and as typed. */
export function GiftCardTable({
  cards,
  refused,
  isBusy,
}: {
  cards: GiftCardRow[];
  refused: (card: string) => Refused;
  isBusy: boolean;
}) {
  return (
    <table className="console-table" tabIndex={0}>
      <caption className="visually-hidden">Gift cards</caption>
      <thead>
        <tr>
          <th scope="col">Last four</th>
          <th scope="col" className="console-number">
            Initial value
          </th>
          <th scope="col" className="console-number">
            Balance
          </th>
          <th scope="col">Issued</th>
          <th scope="col">Expires</th>
          <th scope="col">Status</th>
          <th scope="col">Change</th>
        </tr>
      </thead>
      <tbody>
        {cards.map((card) => {
          const adjust = refused(card.id);
          return (
            <tr key={card.id}>
              <td>
                <code>{card.lastFour}</code>
                <br />
                <small>{card.source}</small>
              </td>
              <td className="console-number">{card.initial}</td>
              <td className="console-number">{card.balance}</td>
              <td>{card.issued}</td>
              <td>{card.expires}</td>
              <td>
                <StatusBadge status={card.status} label={STATUS_LABELS[card.status]} />
              </td>
              <td>
                {card.status === "disabled" ? null : (
                  <Form method="post" noValidate>
                    <input type="hidden" name="intent" value="disable" />
                    <input type="hidden" name="card" value={card.id} />
                    <button
                      type="submit"
                      className="console-link-button"
                      disabled={isBusy}
                      aria-label={`Disable ${card.name}`}
                    >
                      Disable
                    </button>
                  </Form>
                )}
                <details open={adjust !== null}>
                  <summary>Adjust</summary>
                  <Form method="post" className="console-form" noValidate>
                    <input type="hidden" name="intent" value="adjust" />
                    <input type="hidden" name="card" value={card.id} />
                    <ConsoleField
                      form={`adjust-${card.lastFour}`}
                      name="amount"
                      label="Amount"
                      hint="5.00 adds, -5.00 takes away."
                      inputMode="decimal"
                      defaultValue={adjust?.values.amount ?? ""}
                      error={adjust?.errors.amount ?? adjust?.errors.card}
                    />
                    <ConsoleField
                      form={`adjust-${card.lastFour}`}
                      name="note"
                      label="Note"
                      defaultValue={adjust?.values.note ?? ""}
                      error={adjust?.errors.note}
                    />
                    <button type="submit" className="console-button" disabled={isBusy}>
                      Adjust {card.name}
                    </button>
                  </Form>
                </details>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
