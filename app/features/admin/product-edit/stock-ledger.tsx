// The product form's "Stock movements": every change of its variants' stock, newest first, with who made it and why
// (an operator, a sale, a payment's hold and its release, a restock, a CSV import).

const LEDGER_REASONS = {
  edit: "Set by an operator",
  sale: "Sold",
  reserve: "Reserved for a payment",
  release: "Reservation released",
  restock: "Put back in stock",
  import: "Set by a CSV import",
} as const;

/** A stock movement as the loader reads it. */
export interface LedgerEntry {
  id: string | number;
  at: string;
  variantId: string;
  reason: keyof typeof LEDGER_REASONS;
  quantityBefore: number;
  quantityAfter: number;
  actor: string;
}

/** The movements, each variant named by its option values ("—" for a product without options). */
export function StockLedger({
  stock,
}: {
  stock: { ledger: LedgerEntry[]; variants: { id: string; optionValues: string[] }[] };
}) {
  return (
    <section aria-labelledby="ledger-heading">
      <h2 id="ledger-heading">Stock movements</h2>
      <table className="console-table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Variant</th>
            <th scope="col">Reason</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {stock.ledger.map((entry) => (
            <tr key={entry.id}>
              <td>{entry.at.slice(0, 16).replace("T", " ")}</td>
              <td>
                {stock.variants.find((variant) => variant.id === entry.variantId)?.optionValues.join(" / ") || "—"}
              </td>
              <td>{LEDGER_REASONS[entry.reason]}</td>
              <td>{entry.quantityBefore}</td>
              <td>{entry.quantityAfter}</td>
              <td>{entry.actor}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
