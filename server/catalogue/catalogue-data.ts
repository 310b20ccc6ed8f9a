/**
 * The shop's catalogue: the source of truth that start-up writes into the products table.
 * Prices are integer cents. Pictures are the project's own files under public/images/products.
 */
export interface CatalogueEntry {
  id: string;
  title: string;
  priceCents: number;
  rating: 1 | 2 | 3 | 4 | 5;
}

export const catalogue: readonly CatalogueEntry[] = [
  {
    id: "12321341",
    title: "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses",
    priceCents: 11_96,
    rating: 5,
  },
  {
    id: "49538094",
    title:
      "Kenwood kMix Stand Mixer for Baking, Stylish Kitchen Mixer with K-beater, Dough Hook and Whisk, 5 Litre Glass Bowl",
    priceCents: 239_00,
    rating: 4,
  },
  { id: "4903850", title: "Samsung LC49RG90SSUXEN 49' Curved LED Gaming Monitor", priceCents: 199_99, rating: 3 },
  {
    id: "23445930",
    title: "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric",
    priceCents: 98_99,
    rating: 5,
  },
  {
    id: "3254354345",
    title: "New Apple iPad Pro (12.9-inch, Wi-Fi, 128GB) - Silver (4th Generation)",
    priceCents: 598_99,
    rating: 4,
  },
  {
    id: "90829332",
    title: "Samsung LC49RG90SSUXEN 49' Curved LED Gaming Monitor - Super Ultra Wide Dual WQHD 5120 x 1440",
    priceCents: 1094_98,
    rating: 4,
  },
];

/** Where a product's picture lives under public/: its SVG source, or the WebP the pages use. */
export function productImagePath(id: string, format: "svg" | "webp"): string {
  return `/images/products/${id}.${format}`;
}

/** Every product picture is drawn at this size; the page reserves it so nothing shifts as images load. */
export const PRODUCT_IMAGE_SIZE = { width: 400, height: 400 } as const;
