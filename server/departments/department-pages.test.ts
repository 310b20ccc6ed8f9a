import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { combinations, variantKey } from "#shared/admin-schemas";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const OPERATOR = { id: null, email: "operator@shop.test" };

/** The department pages, /search's new controls, breadcrumbs and the console's department writes, as a shopper and an operator meet them. */
describeEachDatabase("departments and listing pages", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  beforeAll(async () => {
    shop = await createPageShop(getDatabase());
  }, 60_000);
  afterAll(() => shop.close());

  const get = (path: string) => createBrowser(shop.app).send(path, { headers: { accept: "text/html" } });
  const html = async (path: string) => {
    const response = await get(path);
    expect(response.status, path).toBe(200);
    return response.text();
  };
  /** Product titles in the order the page lists them. */
  const titles = (page: string) =>
    [...page.matchAll(/class="product-card__title"[^>]*>(?:<a[^>]*>)?([^<]+)</g)].map((match) =>
      match[1]!.replaceAll("&#x27;", "'"),
    );
  const jsonLd = (page: string) =>
    [...page.matchAll(/<script type="application\/ld\+json"[^>]*>([^<]*)<\/script>/g)].map(
      (match) => JSON.parse(match[1]!) as Record<string, unknown>,
    );

  it("seeds the tree and puts the seeded six in it: Computers lists its sub-departments' monitors and the iPad", async () => {
    const all = await html("/departments");
    for (const name of ["Books", "Home &amp; Kitchen", "Electronics", "Computers", "Monitors", "Tablets"])
      expect(all).toContain(`>${name}</a>`);
    const computers = await html("/departments/computers");
    expect(computers).toContain("1-3 of 3 results");
    expect(titles(computers)).toHaveLength(3);
    expect(computers).toMatch(
      /href="\/departments\/monitors"[^>]*>Monitors<\/a> <span class="listing__count">\(2\)<\/span>/,
    );
    expect(titles(await html("/departments/books"))).toEqual([
      "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses",
    ]);
    expect((await get("/departments/no-such-department")).status).toBe(404);
  });

  it("sorts by price both ways and filters by price and stars through the query string", async () => {
    const prices = (page: string) =>
      [...page.matchAll(/class="price"[^>]*>\$([\d,.]+)</g)].map((match) => Number(match[1]!.replace(",", "")));
    const ascending = prices(await html("/departments/computers?sort=price-asc"));
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect(ascending).toHaveLength(3);
    expect(prices(await html("/departments/computers?sort=price-desc"))).toEqual([...ascending].reverse());
    expect(titles(await html("/departments/computers?price=100-200"))).toEqual([
      "Samsung LC49HG90DMUXEN 49' Curved QLED Gaming Monitor - Double Full HD 3840 x 1080",
    ]);
    expect(titles(await html("/departments/computers?min=500&max=700"))).toEqual([
      "New Apple iPad Pro (12.9-inch, Wi-Fi, 128GB) - Silver (4th Generation)",
    ]);
    // The 3-star monitor drops out of "4 Stars & Up".
    expect(titles(await html("/departments/computers?rating=4"))).toHaveLength(2);
  });

  it("ignores unknown values, answers 404 past the last page, and offers Clear all filters when nothing matches", async () => {
    const plain = titles(await html("/departments/computers"));
    expect(
      titles(await html("/departments/computers?sort=cheapest&price=1-2&rating=9&min=abc&page=abc&colour=<b>")),
    ).toEqual(plain);
    expect((await get("/departments/computers?page=2")).status).toBe(404);
    expect((await get("/departments/computers?page=99999999999")).status).toBe(200);
    const empty = await html("/departments/books?price=200-");
    expect(empty).toContain("No results");
    expect(empty).toMatch(/<a class="button" href="\/departments\/books"[^>]*>Clear all filters<\/a>/);
  });

  it("gives every state one canonical address, the plain department, and keeps filtered or later pages out of the index", async () => {
    const plain = await html("/departments/computers");
    expect(plain).toContain('<link rel="canonical" href="http://shop.test/departments/computers"/>');
    expect(plain).not.toContain("noindex");
    const filtered = await html("/departments/computers?price=100-200&sort=price-desc");
    expect(filtered).toContain('<link rel="canonical" href="http://shop.test/departments/computers"/>');
    expect(filtered).toContain('<meta name="robots" content="noindex, follow"/>');
    const sitemap = await (await createBrowser(shop.app).send("/sitemap.xml")).text();
    expect(sitemap).toContain("<loc>http://shop.test/departments/computers</loc>");
    expect(sitemap).toContain("<loc>http://shop.test/departments/monitors</loc>");
  });

  it("shows a product's way up as breadcrumbs, with the same trail for search engines", async () => {
    const page = await html("/products/samsung-49-inch-curved-gaming-monitor");
    expect(page).toMatch(
      /<nav aria-label="Breadcrumb"[^>]*><ol><li><a href="\/"[^>]*>Home<\/a><\/li><li><a href="\/departments\/computers"[^>]*>Computers<\/a><\/li><li><a href="\/departments\/monitors"[^>]*>Monitors<\/a>/,
    );
    expect(jsonLd(page).find((data) => data["@type"] === "BreadcrumbList")).toEqual({
      "@context": "https://schema.org",
      "@type": "BreadcrumbList",
      itemListElement: [
        { "@type": "ListItem", position: 1, name: "Home", item: "http://shop.test/" },
        { "@type": "ListItem", position: 2, name: "Computers", item: "http://shop.test/departments/computers" },
        { "@type": "ListItem", position: 3, name: "Monitors", item: "http://shop.test/departments/monitors" },
      ],
    });
  });

  it("gives /search the same controls and the departments of its results with counts", async () => {
    const page = await html("/search?q=monitor");
    expect(page).toMatch(
      /href="\/search\?q=monitor&amp;department=computers"[^>]*>Computers<\/a> <span class="listing__count">\(3\)<\/span>/,
    );
    expect(titles(await html("/search?q=monitor&department=computers&sort=price-desc&rating=4"))).toEqual([
      "Samsung LC49RG90SSUXEN 49' Curved LED Gaming Monitor - Super Ultra Wide Dual WQHD 5120 x 1440",
      "New Apple iPad Pro (12.9-inch, Wi-Fi, 128GB) - Silver (4th Generation)",
    ]);
    expect(await html("/search?q=monitor&department=books")).toContain("No results");
    expect((await get("/search?q=monitor&page=2")).status).toBe(404);
  });

  describe("with 30 more products in Books", () => {
    const ids = Array.from({ length: 30 }, (_, index) => `book-${index + 1}`);
    beforeAll(async () => {
      const { db } = getDatabase();
      await db
        .insertInto("products")
        .values(
          ids.map((id, index) => ({
            id,
            slug: id,
            title: `Paperback ${index + 1}`,
            price_cents: 500 + index * 100,
            rating: 1 + (index % 5),
            image: "/images/products/12321341.webp",
            image_width: 400,
            image_height: 400,
            featured_position: null,
          })),
        )
        .execute();
      const books = await db
        .selectFrom("departments")
        .select("id")
        .where("slug", "=", "books")
        .executeTakeFirstOrThrow();
      await shop.services.departments.setProductDepartments(db, ids[0]!, [books.id]);
      await db
        .insertInto("product_departments")
        .values(ids.slice(1).map((id) => ({ department_id: books.id, product_id: id })))
        .execute();
    });
    afterAll(async () => {
      await getDatabase().db.deleteFrom("products").where("id", "in", ids).execute();
    });

    it("pages 24 at a time with Previous and Next", async () => {
      const first = await html("/departments/books");
      expect(first).toContain("1-24 of 31 results");
      expect(titles(first)).toHaveLength(24);
      expect(first).toMatch(/<a[^>]*href="\/departments\/books\?page=2"[^>]*>Next<\/a>/);
      const second = await html("/departments/books?page=2");
      expect(second).toContain("25-31 of 31 results");
      expect(second).toMatch(/<a[^>]*href="\/departments\/books"[^>]*>Previous<\/a>/);
      expect(second).toContain('<meta name="robots" content="noindex, follow"/>');
      expect(new Set([...titles(first), ...titles(second)]).size).toBe(31);
      expect(await html("/departments/books?price=0-25&rating=4&sort=price-asc")).toContain("1-9 of 9 results");
    });

    it("refuses to remove a department while it has products", async () => {
      const books = await shop.services.departments.findBySlug("books");
      await expect(shop.services.departments.removeDepartment(OPERATOR, books!.department.id)).rejects.toThrow(
        /Books still has 31 products/,
      );
    });
  });

  describe("with T-shirts in sizes, one of them sold out", () => {
    const tees = [
      { id: "tee-plain", title: "Plain Tee", options: [{ name: "Size", values: ["S", "M"] }], stock: 5 },
      {
        id: "tee-striped",
        title: "Striped Tee",
        options: [
          { name: "Size", values: ["M", "L"] },
          { name: "Colour", values: ["Black"] },
        ],
        stock: 0,
      },
    ];
    beforeAll(async () => {
      const { db } = getDatabase();
      const { catalogue, inventory, departments } = shop.services;
      const electronics = (await departments.findBySlug("electronics"))!.department;
      for (const tee of tees) {
        await db
          .insertInto("products")
          .values({
            id: tee.id,
            slug: tee.id,
            title: tee.title,
            price_cents: 1500,
            rating: 4,
            image: "/images/products/12321341.webp",
            image_width: 400,
            image_height: 400,
            featured_position: null,
          })
          .execute();
        await db
          .insertInto("product_departments")
          .values({ department_id: electronics.id, product_id: tee.id })
          .execute();
        await db.transaction().execute(async (trx) => {
          const combos = combinations(tee.options);
          const variants = combos.map((values) => ({
            key: variantKey(values),
            optionValues: values,
            sku: null,
            priceCents: null,
            compareAtCents: null,
            tracksStock: true,
            continueSelling: false,
            weightGrams: 0,
            removePicture: false,
          }));
          const ids = await catalogue.saveOptionsAndVariants(trx, tee.id, 1500, { options: tee.options, variants });
          for (const id of ids.values())
            await inventory.setStock(trx, id, { tracksStock: true, continueSelling: false, onHand: tee.stock }, "test");
        });
      }
    });
    afterAll(async () => {
      await getDatabase()
        .db.deleteFrom("products")
        .where(
          "id",
          "in",
          tees.map((tee) => tee.id),
        )
        .execute();
    });
    const facetCount = (page: string, href: string, label: string) =>
      page.match(
        new RegExp(
          `href="${href.replaceAll("?", "\\?").replaceAll("&", "&amp;")}"[^>]*>${label}</a> <span class="listing__count">\\((\\d+)\\)</span>`,
        ),
      )?.[1];

    it("leaves out what cannot be bought until Include Out of Stock is chosen", async () => {
      const plain = await html("/departments/electronics");
      expect(titles(plain)).toContain("Plain Tee");
      expect(titles(plain)).not.toContain("Striped Tee");
      expect(plain).toMatch(
        /<a class="listing__check" href="\/departments\/electronics\?stock=all"[^>]*>Include Out of Stock<\/a>/,
      );
      const included = await html("/departments/electronics?stock=all");
      expect(titles(included)).toEqual(expect.arrayContaining(["Plain Tee", "Striped Tee"]));
      expect(included).toMatch(/Striped Tee[^]*?<p class="product-card__stock">Out of stock<\/p>/);
      expect(included).toMatch(
        /<a class="listing__check" aria-current="true" href="\/departments\/electronics"[^>]*>Include Out of Stock<\/a>/,
      );
      expect(await html("/search?q=tee")).not.toContain("Striped Tee");
    });

    it("keeps the catalogue's version when a count changes nothing a guest reads, and lists a size taking back-orders at once", async () => {
      const { db } = getDatabase();
      const { inventory } = shop.services;
      const version = async () =>
        (await db.selectFrom("catalogue_version").select("version").executeTakeFirstOrThrow()).version;
      const variantsOf = (productId: string) =>
        db.selectFrom("product_variants").select("id").where("product_id", "=", productId).orderBy("id").execute();
      const [plain] = await variantsOf("tee-plain");
      const count = (onHand: number) =>
        db
          .transaction()
          .execute((trx) =>
            inventory.setStock(trx, plain!.id, { tracksStock: true, continueSelling: false, onHand }, "test"),
          );
      await count(10);
      const before = await version();
      // Eleven on the shelf instead of ten: still "In stock", so every instance keeps the pages it has.
      await count(11);
      expect(await version()).toBe(before);
      await count(5);
      // A sold-out size that now takes back-orders can be bought: the listing shows the product again.
      const [striped] = await variantsOf("tee-striped");
      await db
        .transaction()
        .execute((trx) =>
          inventory.setStock(trx, striped!.id, { tracksStock: true, continueSelling: true, onHand: 0 }, "test"),
        );
      expect(BigInt(await version())).toBeGreaterThan(BigInt(before));
      expect(titles(await html("/departments/electronics"))).toContain("Striped Tee");
      await db
        .transaction()
        .execute((trx) =>
          inventory.setStock(trx, striped!.id, { tracksStock: true, continueSelling: false, onHand: 0 }, "test"),
        );
      expect(titles(await html("/departments/electronics"))).not.toContain("Striped Tee");
    });

    it("filters by the listed products' option values, counting each value's products", async () => {
      const all = await html("/departments/electronics?stock=all");
      expect(facetCount(all, "/departments/electronics?stock=all&size=M", "M")).toBe("2");
      expect(facetCount(all, "/departments/electronics?stock=all&size=S", "S")).toBe("1");
      expect(facetCount(all, "/departments/electronics?stock=all&colour=Black", "Black")).toBe("1");
      const large = await html("/departments/electronics?stock=all&size=L");
      expect(titles(large)).toEqual(["Striped Tee"]);
      // A size's own counts stay as they were, so that a second size can be added.
      expect(facetCount(large, "/departments/electronics?stock=all&size=L&size=M", "M")).toBe("2");
      expect(titles(await html("/departments/electronics?stock=all&size=L&size=S"))).toEqual(
        expect.arrayContaining(["Plain Tee", "Striped Tee"]),
      );
      // In stock only: the sold-out sizes' products drop out, and with them their values.
      const inStock = await html("/departments/electronics");
      expect(facetCount(inStock, "/departments/electronics?size=M", "M")).toBe("1");
      expect(facetCount(inStock, "/departments/electronics?colour=Black", "Black")).toBeUndefined();
      expect(titles(await html("/search?q=tee&size=M"))).toEqual(["Plain Tee"]);
    });

    it("lists a product where it has just been placed, and no longer where it was", async () => {
      const { db } = getDatabase();
      const { departments } = shop.services;
      const books = (await departments.findBySlug("books"))!.department;
      const electronics = (await departments.findBySlug("electronics"))!.department;
      await departments.setProductDepartments(db, "tee-plain", [books.id]);
      expect(titles(await html("/departments/books"))).toContain("Plain Tee");
      expect(titles(await html("/departments/electronics"))).not.toContain("Plain Tee");
      await departments.setProductDepartments(db, "tee-plain", [electronics.id, books.id]);
      expect(titles(await html("/departments/books"))).toContain("Plain Tee");
      expect(titles(await html("/departments/electronics"))).toContain("Plain Tee");
      await departments.setProductDepartments(db, "tee-plain", [electronics.id]);
      expect(titles(await html("/departments/books"))).not.toContain("Plain Tee");
    });

    it("ignores a parameter that names no option of the listed products", async () => {
      const tracked = await html("/departments/electronics?utm_source=mail&size=XXL");
      expect(titles(tracked)).toEqual(titles(await html("/departments/electronics")));
      expect(tracked).not.toContain("noindex");
      expect(tracked).not.toContain("Clear all filters");
    });
  });

  it("lets an operator create, rename, move and remove departments, each in the audit log", async () => {
    const { departments } = shop.services;
    const computers = (await departments.findBySlug("computers"))!.department;
    const books = (await departments.findBySlug("books"))!.department;
    const created = await departments.createDepartment(OPERATOR, { name: "Keyboards & Mice", parentId: null });
    expect(created.slug).toBe("keyboards-mice");
    const moved = await departments.updateDepartment(OPERATOR, created.id, {
      name: "Keyboards",
      parentId: computers.id,
      position: 1,
    });
    expect(moved).toMatchObject({ slug: "keyboards", parentId: computers.id, position: 1 });
    expect(await html("/departments")).toMatch(/Computers departments[^]*>Keyboards<\/a>/);
    // Two levels at most: not under a sub-department, and a department with sub-departments stays top-level.
    await expect(
      departments.updateDepartment(OPERATOR, books.id, { name: "Books", parentId: moved.id }),
    ).rejects.toThrow(/two levels deep/);
    await expect(
      departments.updateDepartment(OPERATOR, computers.id, { name: "Computers", parentId: books.id }),
    ).rejects.toThrow(/sub-departments/);
    await departments.removeDepartment(OPERATOR, created.id);
    expect((await get("/departments/keyboards")).status).toBe(404);
    const actions = await getDatabase()
      .db.selectFrom("audit_log")
      .select(["action", "subject"])
      .where("action", "like", "department.%")
      .orderBy("id")
      .execute();
    expect(actions).toEqual([
      { action: "department.create", subject: "keyboards-mice" },
      { action: "department.update", subject: "keyboards" },
      { action: "department.remove", subject: "keyboards" },
    ]);
  });
});
