// The demo catalogue's sixty products, so listings have pages, sorts and filters worth trying (npm run demo-catalogue).

/**
 * The demo catalogue (`npm run demo-catalogue`): sixty products across the seeded departments, never featured, so
 * that listings have pages, sorts and filters worth trying. Pictures are drawn by scripts/draw-demo-pictures.ts into
 * images/demo/{id}.webp and committed. This file imports nothing, so that script can read it as it is.
 */
export type DemoShape =
  | "book"
  | "pot"
  | "mug"
  | "speaker"
  | "headphones"
  | "camera"
  | "monitor"
  | "tablet"
  | "keyboard"
  | "mouse"
  | "lamp"
  | "kettle";

export interface DemoProduct {
  id: string;
  title: string;
  description: string;
  priceCents: number;
  rating: 1 | 2 | 3 | 4 | 5;
  /** How many (demo) ratings the rating stands for: the import keeps a rating only with its count. */
  ratingCount: number;
  departmentSlugs: string[];
  shape: DemoShape;
  colour: string;
  /** Its options (a product without is sold as one); each combination is a variant at the product's price. */
  options?: { name: string; values: string[] }[];
  /** Stock per variant; absent: not tracked (always in stock). */
  stock?: number;
}

/** The demo products sold in options, some with a stock: sizes and colours to filter by, one sold out, a few nearly. */
const VARIANTS: Record<string, Pick<DemoProduct, "options" | "stock">> = {
  "Write Clearly: A Handbook for Work": { options: [{ name: "Format", values: ["Paperback", "Hardcover"] }] },
  "Large Desk Mat": { options: [{ name: "Size", values: ["M", "L", "XL"] }], stock: 12 },
  "Stoneware Mugs, Set of 4": { options: [{ name: "Colour", values: ["Black", "Grey", "White"] }], stock: 20 },
  "Espresso Cups, Set of 6": { options: [{ name: "Colour", values: ["Black", "White"] }], stock: 0 },
  "Mechanical Keyboard, Brown Switches": { options: [{ name: "Layout", values: ["US", "UK"] }], stock: 3 },
  "Wireless Mouse, Silent Click": {
    options: [
      { name: "Colour", values: ["Black", "White"] },
      { name: "Size", values: ["M", "L"] },
    ],
    stock: 8,
  },
};

/** How the demo's colour values are drawn: each colour a product is sold in has a picture of its own in that colour. */
export const DEMO_COLOURS: Readonly<Record<string, string>> = { Black: "#262626", Grey: "#8c8c8c", White: "#fbfbfb" };

/** The values of a demo product's "Colour" option, with their place among its options; none for the others. */
export function demoColours(product: DemoProduct): { index: number; values: string[] } | undefined {
  const index = (product.options ?? []).findIndex((option) => option.name === "Colour");
  return index === -1 ? undefined : { index, values: product.options![index]!.values };
}

/** The file (images/demo/{id}.webp) of a demo product's picture in one of its colours. */
export function colourPictureId(product: Pick<DemoProduct, "id">, colour: string): string {
  return `${product.id}--${colour.toLowerCase()}`;
}

type Row = [title: string, priceCents: number, rating: 1 | 2 | 3 | 4 | 5, colour: string];

const GROUPS: { department: string; shape: DemoShape; what: string; rows: Row[] }[] = [
  {
    department: "books",
    shape: "book",
    what: "A paperback",
    rows: [
      ["Sourdough at Home: Bread from Your Own Kitchen", 18_99, 5, "#b5651d"],
      ["The Quiet Garden: A Year of Small Plots", 14_50, 4, "#4f7942"],
      ["Numbers Without Fear: Everyday Statistics", 22_00, 4, "#2f4f8f"],
      ["The Harbour Light (A Novel)", 9_99, 3, "#1f6f8b"],
      ["Mountains and Maps: Walks Across Europe", 27_50, 5, "#6b4c9a"],
      ["Write Clearly: A Handbook for Work", 16_00, 4, "#8b1e3f"],
      ["The Little Book of Knots", 7_49, 3, "#c28f2c"],
      ["Cooking for One, Cooking for Six", 31_00, 4, "#d2691e"],
      ["Stars Overhead: A Beginner's Sky Guide", 24_99, 5, "#191970"],
      ["Letters from the Coast", 12_99, 2, "#2e8b57"],
      ["Design Your Own Furniture", 45_00, 4, "#705030"],
      ["A Short History of Tea", 11_25, 3, "#556b2f"],
    ],
  },
  {
    department: "home-kitchen",
    shape: "pot",
    what: "For the kitchen",
    rows: [
      ["Cast Iron Casserole Dish, 24 cm", 64_99, 5, "#b22222"],
      ["Non-Stick Frying Pan, 28 cm", 29_99, 4, "#333333"],
      ["Stainless Steel Saucepan Set of 3", 89_00, 4, "#8c8c8c"],
      ["Stockpot with Glass Lid, 8 Litre", 42_50, 3, "#4682b4"],
      ["Enamel Milk Pan, 14 cm", 19_99, 4, "#3cb371"],
      ["Wok with Bamboo Lid, 32 cm", 37_00, 3, "#2f2f2f"],
      ["Ceramic Baking Dish, Large", 24_00, 5, "#e9967a"],
    ],
  },
  {
    department: "home-kitchen",
    shape: "mug",
    what: "For the table",
    rows: [
      ["Stoneware Mugs, Set of 4", 28_00, 5, "#5f9ea0"],
      ["Glass Teapot with Infuser", 21_50, 4, "#87ceeb"],
      ["Espresso Cups, Set of 6", 17_99, 3, "#cd853f"],
    ],
  },
  {
    department: "home-kitchen",
    shape: "kettle",
    what: "A kitchen appliance",
    rows: [
      ["Electric Kettle 1.7 L, Brushed Steel", 39_99, 4, "#a9a9a9"],
      ["Gooseneck Pour-Over Kettle", 54_00, 5, "#222222"],
      ["Two-Slice Toaster, Cream", 34_99, 3, "#f5deb3"],
      ["Hand Blender with Whisk", 44_99, 4, "#6a5acd"],
    ],
  },
  {
    department: "electronics",
    shape: "speaker",
    what: "A speaker",
    rows: [
      ["Portable Bluetooth Speaker, Waterproof", 49_99, 4, "#008080"],
      ["Bookshelf Speakers, Pair", 129_00, 5, "#3b3b3b"],
      ["Smart Display with Speaker, 8 inch", 89_99, 3, "#696969"],
      ["Soundbar with Subwoofer", 219_00, 4, "#1c1c1c"],
      ["Mini Speaker for Kids", 19_99, 2, "#ff7f50"],
    ],
  },
  {
    department: "electronics",
    shape: "headphones",
    what: "Headphones",
    rows: [
      ["Noise-Cancelling Headphones, Over-Ear", 249_00, 5, "#2f4f4f"],
      ["Wireless Earbuds with Charging Case", 79_99, 4, "#f0f0f0"],
      ["Wired Earphones with Microphone", 12_99, 3, "#000080"],
      ["Kids' Headphones, Volume Limited", 24_99, 4, "#ff69b4"],
    ],
  },
  {
    department: "electronics",
    shape: "camera",
    what: "A camera",
    rows: [
      ["Action Camera 4K with Mounts", 149_00, 4, "#444444"],
      ["Instant Camera, Mint", 69_99, 5, "#98ff98"],
      ["Video Doorbell with Chime", 99_00, 3, "#505050"],
      ["Dash Cam, Front and Rear", 119_99, 3, "#202020"],
      ["Compact Digital Camera, 20 MP", 279_00, 4, "#800000"],
    ],
  },
  {
    department: "monitors",
    shape: "monitor",
    what: "A monitor",
    rows: [
      ["24 inch Full HD IPS Monitor", 129_99, 4, "#1e90ff"],
      ["27 inch QHD Monitor, 165 Hz", 289_00, 5, "#4b0082"],
      ["32 inch 4K Monitor with USB-C", 449_00, 4, "#2e2e2e"],
      ["Portable Monitor 15.6 inch", 179_00, 3, "#708090"],
      ["34 inch Ultra-Wide Curved Monitor", 399_99, 4, "#483d8b"],
    ],
  },
  {
    department: "tablets",
    shape: "tablet",
    what: "A tablet",
    rows: [
      ["10 inch Tablet, 64 GB, Wi-Fi", 159_00, 4, "#c0c0c0"],
      ["E-Reader with Warm Light", 119_99, 5, "#f5f5dc"],
      ["Kids' Tablet with Bumper Case", 89_99, 3, "#ffa500"],
      ["Drawing Tablet with Pen", 69_00, 4, "#333366"],
    ],
  },
  {
    department: "computers",
    shape: "keyboard",
    what: "For the desk",
    rows: [
      ["Mechanical Keyboard, Brown Switches", 89_00, 5, "#2b2b2b"],
      ["Slim Wireless Keyboard", 34_99, 4, "#dcdcdc"],
      ["USB-C Hub, 7 Ports", 29_99, 4, "#778899"],
      ["Laptop Stand, Aluminium", 39_00, 5, "#b0c4de"],
    ],
  },
  {
    department: "computers",
    shape: "mouse",
    what: "For the desk",
    rows: [
      ["Wireless Mouse, Silent Click", 19_99, 4, "#556b2f"],
      ["Ergonomic Vertical Mouse", 44_00, 3, "#36454f"],
      ["Large Desk Mat", 14_99, 5, "#2f4f4f"],
    ],
  },
  {
    department: "home-kitchen",
    shape: "lamp",
    what: "For the home",
    rows: [["Desk Lamp with Dimmer", 32_00, 4, "#daa520"]],
  },
];

function demoId(title: string): string {
  return `demo-${title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "")}`;
}

export const DEMO_PRODUCTS: readonly DemoProduct[] = GROUPS.flatMap((group) =>
  group.rows.map(([title, priceCents, rating, colour]) => ({
    id: demoId(title),
    title,
    description: `${group.what} from the demo catalogue: ${title}.\n\nA made-up product for trying the shop's departments, sorting and filters; its picture was drawn for it.`,
    priceCents,
    rating,
    ratingCount: 3 + (title.length % 40),
    departmentSlugs: [group.department],
    shape: group.shape,
    colour,
    ...VARIANTS[title],
  })),
);
