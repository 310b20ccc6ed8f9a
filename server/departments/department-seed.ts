// The department tree a new shop starts with and where the six seeded products go in it, written only into an empty
// tree.

import type { DB } from "#server/db/client";

/** The tree a new shop starts with, and where the seeded six products go in it (by product id). */
export const SEEDED_DEPARTMENTS = [
  {
    slug: "books",
    name: "Books",
    description: "Business, cookery, fiction and more, in paperback and hardback.",
    products: ["12321341"],
    children: [],
  },
  {
    slug: "home-kitchen",
    name: "Home & Kitchen",
    description: "Mixers, kettles, cookware and everything for the home.",
    products: ["49538094"],
    children: [],
  },
  {
    slug: "electronics",
    name: "Electronics",
    description: "Speakers, headphones, cameras and smart home.",
    products: ["23445930"],
    children: [],
  },
  {
    slug: "computers",
    name: "Computers",
    description: "Monitors, tablets and accessories.",
    products: [],
    children: [
      {
        slug: "monitors",
        name: "Monitors",
        description: "Curved, ultra-wide and everyday monitors.",
        products: ["4903850", "90829332"],
      },
      { slug: "tablets", name: "Tablets", description: "Tablets and e-readers.", products: ["3254354345"] },
    ],
  },
] as const;

/**
 * Writes the seeded tree into a shop that has no departments, and puts the seeded six products that exist into them;
 * a shop with departments is the operator's and is never touched. Runs at start-up under the start-up lock, after
 * the catalogue's own seed.
 */
export async function seedDepartments(db: DB): Promise<void> {
  const existing = await db.selectFrom("departments").select("id").limit(1).executeTakeFirst();
  if (existing) return;
  // Start-up runs inside its own transaction (the start-up lock's); on its own, the seed takes one.
  const inOneTransaction = (write: (trx: DB) => Promise<void>) =>
    db.isTransaction ? write(db) : db.transaction().execute(write);
  await inOneTransaction(async (trx) => {
    const productIds = SEEDED_DEPARTMENTS.flatMap((top) => [
      ...top.products,
      ...top.children.flatMap((child) => child.products),
    ]);
    const present = new Set(
      (await trx.selectFrom("products").select("id").where("id", "in", productIds).execute()).map((row) => row.id),
    );
    for (const [index, top] of SEEDED_DEPARTMENTS.entries()) {
      const parent = await trx
        .insertInto("departments")
        .values({ slug: top.slug, name: top.name, description: top.description, position: index + 1, parent_id: null })
        .returning("id")
        .executeTakeFirstOrThrow();
      const links: { department_id: string; product_id: string }[] = top.products
        .filter((id) => present.has(id))
        .map((id) => ({ department_id: parent.id, product_id: id }));
      for (const [childIndex, child] of top.children.entries()) {
        const row = await trx
          .insertInto("departments")
          .values({
            slug: child.slug,
            name: child.name,
            description: child.description,
            position: childIndex + 1,
            parent_id: parent.id,
          })
          .returning("id")
          .executeTakeFirstOrThrow();
        links.push(
          ...child.products.filter((id) => present.has(id)).map((id) => ({ department_id: row.id, product_id: id })),
        );
      }
      if (links.length > 0) await trx.insertInto("product_departments").values(links).execute();
    }
  });
}
