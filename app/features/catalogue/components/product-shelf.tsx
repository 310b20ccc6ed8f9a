// Products in rows of given sizes, the first row's pictures loaded at once.

import type { ReactNode } from "react";
import type { CatalogueProduct } from "#shared/catalogue";
import { ProductCard } from "./product-card";

/**
 * The products in rows of the given sizes (the home page's 2, 3, 1); any left over form a last row. The first row's
 * pictures load at once unless the whole shelf is below the fold.
 */
export function ProductShelf({
  products,
  rowSizes,
  renderAction,
  isBelowTheFold = false,
}: {
  products: readonly CatalogueProduct[];
  rowSizes: readonly number[];
  renderAction: (product: CatalogueProduct) => ReactNode;
  isBelowTheFold?: boolean;
}) {
  const rows: CatalogueProduct[][] = [];
  let start = 0;
  for (const size of rowSizes) {
    if (start >= products.length) break;
    rows.push(products.slice(start, start + size));
    start += size;
  }
  if (start < products.length) rows.push(products.slice(start));

  return (
    <div className="product-shelf">
      {rows.map((row, rowIndex) => (
        <div className="product-shelf__row" key={row.map((product) => product.id).join("-")} data-testid="product-row">
          {row.map((product) => (
            <ProductCard
              key={product.id}
              product={product}
              isPriority={rowIndex === 0 && !isBelowTheFold}
              action={renderAction(product)}
            />
          ))}
        </div>
      ))}
    </div>
  );
}
