// The notice of products whose price changed since they went in the basket.

import type { BasketLineView } from "#shared/basket";
import { formatCents } from "#shared/money";

/**
 * Tells the shopper which products' prices changed since they put them in the basket. A line's notice lasts until
 * the shopper chooses it again at today's price (adds one more or sets its quantity), or it leaves the basket.
 */
export function PriceChanges({ lines }: { lines: readonly BasketLineView[] }) {
  const changed = lines.flatMap((line) =>
    line.addedPriceCents === undefined ? [] : [{ ...line, addedPriceCents: line.addedPriceCents }],
  );
  if (changed.length === 0) return null;
  return (
    <ul className="price-changes" aria-label="Price changes">
      {changed.map((line) => (
        <li key={line.itemId} className="price-changes__item">
          The price of {line.product.title} changed from {formatCents(line.addedPriceCents)} to{" "}
          {formatCents(line.product.priceCents)}.
        </li>
      ))}
    </ul>
  );
}
