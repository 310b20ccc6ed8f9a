// The shop's six products as start-up seeds them into an empty catalogue; after that the products table is the source
// of truth.

/**
 * The shop's six products: what start-up writes into an empty catalogue (and migration 0008 gave the rows an older
 * shop already had). After that the products table is the source of truth: editing this file changes no shop that
 * already has a catalogue. Prices are integer cents. Pictures are the project's own files under images/products: a row
 * holds the picture's path there, which the catalogue turns into the build's address when it reads the row.
 */
export interface CatalogueEntry {
  id: string;
  slug: string;
  title: string;
  /** Plain paragraphs separated by blank lines. */
  description: string;
  priceCents: number;
  rating: 1 | 2 | 3 | 4 | 5;
}

export const catalogue: readonly CatalogueEntry[] = [
  {
    id: "12321341",
    slug: "the-lean-startup",
    title: "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses",
    description: [
      "Eric Ries's handbook for building a business when nobody yet knows what customers want. Instead of a long plan and a big launch, it argues for small experiments, honest measurement and quick changes of course.",
      "Read it for the ideas that became everyday vocabulary: the minimum viable product, the build-measure-learn loop, and knowing when to pivot. Paperback, 336 pages.",
    ].join("\n\n"),
    priceCents: 11_96,
    rating: 5,
  },
  {
    id: "49538094",
    slug: "kenwood-kmix-stand-mixer",
    title:
      "Kenwood kMix Stand Mixer for Baking, Stylish Kitchen Mixer with K-beater, Dough Hook and Whisk, 5 Litre Glass Bowl",
    description: [
      "A 1000-watt stand mixer that kneads bread dough, creams butter and whips egg whites in a 5 litre glass bowl you can watch through.",
      "It comes with a K-beater for cakes and pastry, a dough hook for bread and a balloon whisk for meringues and cream. The splash guard keeps flour in the bowl, and the bowl, beater and hook go in the dishwasher.",
    ].join("\n\n"),
    priceCents: 239_00,
    rating: 4,
  },
  {
    id: "4903850",
    slug: "samsung-49-inch-curved-gaming-monitor",
    title: "Samsung LC49HG90DMUXEN 49' Curved QLED Gaming Monitor - Double Full HD 3840 x 1080",
    description: [
      "A 49 inch curved screen as wide as two monitors side by side, for racing games, flight simulators and spreadsheets that never end.",
      "The 1800R curve keeps the edges in view, and a 144 Hz refresh rate with FreeSync 2 keeps fast games smooth. Height-adjustable stand, HDMI and DisplayPort inputs.",
    ].join("\n\n"),
    priceCents: 199_99,
    rating: 3,
  },
  {
    id: "23445930",
    slug: "amazon-echo-3rd-generation",
    title: "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric",
    description: [
      "A smart speaker with room-filling sound, wrapped in charcoal fabric. Ask Alexa to play music, set timers, read the news or answer a question.",
      "It controls compatible lights, plugs and thermostats by voice, and a button turns the microphones off whenever you like.",
    ].join("\n\n"),
    priceCents: 98_99,
    rating: 5,
  },
  {
    id: "3254354345",
    slug: "apple-ipad-pro-12-9-inch",
    title: "New Apple iPad Pro (12.9-inch, Wi-Fi, 128GB) - Silver (4th Generation)",
    description: [
      "The 12.9 inch Liquid Retina display shows drawings, films and documents edge to edge, and the A12Z Bionic chip keeps up with photo and video editing.",
      "Face ID unlocks it, the USB-C port charges it and connects an external monitor, and 128 GB holds your apps and files. Wi-Fi model, in silver.",
    ].join("\n\n"),
    priceCents: 598_99,
    rating: 4,
  },
  {
    id: "90829332",
    slug: "samsung-49-inch-curved-gaming-monitor-dual-wqhd",
    title: "Samsung LC49RG90SSUXEN 49' Curved LED Gaming Monitor - Super Ultra Wide Dual WQHD 5120 x 1440",
    description: [
      "The super ultra-wide gaming monitor at Dual WQHD resolution: 5120 x 1440 pixels across 49 inches, the sharpness of two 27 inch QHD screens with no bezel between them.",
      "HDR1000 brightness, a 120 Hz refresh rate and a 1800R curve make it a cockpit for games and a roomy desk for work.",
    ].join("\n\n"),
    priceCents: 1094_98,
    rating: 4,
  },
];

/** Where a product's picture lives under the project: its SVG source, or the WebP the pages use. */
export function productImagePath(id: string, format: "svg" | "webp"): string {
  return `/images/products/${id}.${format}`;
}

/** Every product picture is drawn at this size; the page reserves it so nothing shifts as images load. */
export const PRODUCT_IMAGE_SIZE = { width: 400, height: 400 } as const;

/**
 * The picture of a product that has none yet: a CSV import's product whose picture is still being fetched (or could
 * not be). A plain frame, drawn from its SVG by `npm run images`; the export writes no address for it.
 */
export const NO_PICTURE = {
  src: "/images/products/no-picture.webp",
  source: "/images/products/no-picture.svg",
  ...PRODUCT_IMAGE_SIZE,
} as const;
