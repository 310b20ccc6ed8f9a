import { afterAll, beforeAll, expect, it } from "vitest";
import { newOrderNumber } from "#server/orders/order-number";
import { createPageShop } from "#server/testing/page-shop";
import { startSmtpCatcher } from "#server/testing/smtp-catcher";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import type { OrderStatus } from "#shared/orders";

const PASSWORD = "correct horse battery";
const ECHO = "23445930";
const ECHO_PAGE = "/products/amazon-echo-3rd-generation";
const BOOK = "12321341";
const DAY = 24 * 60 * 60 * 1000;
let counter = 0;
const uniqueEmail = () => `reviewer${Date.now()}${++counter}@example.com`;

/**
 * Verified-purchase reviews through the product page as a browser without JavaScript posts it: who may review,
 * what bad input is told, what the page, the cards, the structured data and guests' kept pages show, the console's
 * Hide and Show, and the review request e-mail with its one-click unsubscribe, read from a real SMTP server.
 */
describeEachDatabase("customer reviews", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  type Browser = ReturnType<typeof createBrowser>;

  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    shop = await createPageShop(getDatabase(), {
      smtp: { url: catcher.url, from: "orders@shop.test" },
      operator: { email: "operator@reviews.test", password: PASSWORD },
    });
  }, 120_000);
  afterAll(async () => {
    await shop.close();
    await catcher.stop();
  });

  const page = (browser: Browser, path: string) => browser.send(path, { headers: { accept: "text/html" } });
  const text = async (browser: Browser, path: string) => {
    const response = await page(browser, path);
    expect(response.status, path).toBe(200);
    return (await response.text()).replace(/<!-- -->/g, "");
  };
  const post = (browser: Browser, path: string, fields: Record<string, string>) =>
    browser.postForm(path, fields, { accept: "text/html", origin: "http://shop.test" });
  async function account(email = uniqueEmail()) {
    const browser = createBrowser(shop.app);
    const response = await post(browser, "/login", { intent: "register", email, password: PASSWORD });
    expect(response.status).toBe(302);
    const user = await getDatabase()
      .db.selectFrom("users")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    return { browser, email, userId: user.id };
  }
  /** A paid order of the account (the shape checkout writes), optionally shipped `shippedDaysAgo`. */
  async function order(
    userId: string,
    productIds: string[],
    {
      status = "paid" as OrderStatus,
      shippedDaysAgo,
      name = "Ada Lovelace",
    }: { status?: OrderStatus; shippedDaysAgo?: number; name?: string } = {},
  ) {
    const id = `pi_reviewtest${Date.now()}${++counter}`;
    const items = productIds.map((productId) => ({
      productId,
      title: productId,
      priceCents: 1000,
      quantity: 1,
      rating: 4,
      image: { src: "/x.webp", width: 1, height: 1 },
    }));
    const db = getDatabase().db;
    await db
      .insertInto("orders")
      .values({
        id,
        number: newOrderNumber(new Date()),
        user_id: userId,
        session_id: null,
        amount_cents: 1000 * productIds.length,
        currency: "usd",
        items: JSON.stringify(items),
        created_at: new Date(),
        status: shippedDaysAgo === undefined ? status : "shipped",
        delivery_address: JSON.stringify({
          name,
          line1: "1 Main Street",
          line2: null,
          city: "Los Angeles",
          region: "CA",
          postalCode: "90001",
          country: "US",
        }),
      })
      .execute();
    if (shippedDaysAgo !== undefined) {
      await db
        .insertInto("order_status_history")
        .values({
          order_id: id,
          status: "shipped",
          actor: "test",
          created_at: new Date(Date.now() - shippedDaysAgo * DAY),
        })
        .execute();
    }
    return id;
  }
  const reviewsOf = (productId: string) =>
    getDatabase().db.selectFrom("reviews").selectAll().where("product_id", "=", productId).execute();
  const figures = (productId: string) =>
    getDatabase()
      .db.selectFrom("products")
      .select(["review_count", "review_average", "shown_rating", "rating"])
      .where("id", "=", productId)
      .executeTakeFirstOrThrow();

  it("tells a shopper without a qualifying order, and a guest, that they can review products they bought; a post from either saves nothing", async () => {
    const { browser, userId } = await account();
    await order(userId, [ECHO], { status: "cancelled" });
    await order(userId, [ECHO], { status: "refunded" });
    const signedIn = await text(browser, ECHO_PAGE);
    expect(signedIn).toContain("You can review products you have bought.");
    expect(signedIn).not.toContain('name="headline"');
    const guest = await text(createBrowser(shop.app), ECHO_PAGE);
    expect(guest).toContain("You can review products you have bought.");

    const refused = await post(browser, ECHO_PAGE, { intent: "review", rating: "5", headline: "Great", body: "" });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("You can review products you have bought.");
    const guestPost = await post(createBrowser(shop.app), ECHO_PAGE, {
      intent: "review",
      rating: "5",
      headline: "Great",
      body: "",
    });
    expect(guestPost.status).toBe(302);
    expect(guestPost.headers.get("location")).toMatch(/^\/login\?returnTo=/);
    expect(await reviewsOf(ECHO)).toEqual([]);
  });

  it("answers bad input with an error under the field and saves nothing", async () => {
    const { browser, userId } = await account();
    await order(userId, [BOOK]);
    const bookPage = "/products/the-lean-startup";
    expect(await text(browser, bookPage)).toContain("Write a customer review");
    const cases: [Record<string, string>, string][] = [
      [{ headline: "Fine" }, "Choose a rating from 1 to 5 stars."],
      [{ rating: "6", headline: "Fine" }, "Choose a rating from 1 to 5 stars."],
      [{ rating: "0", headline: "Fine" }, "Choose a rating from 1 to 5 stars."],
      [{ rating: "4", headline: "   " }, "Add a headline."],
      [{ rating: "4", headline: "Fine", body: "x".repeat(5_001) }, "A written review is at most 5,000 characters."],
    ];
    for (const [fields, message] of cases) {
      const response = await post(browser, bookPage, { intent: "review", body: "", ...fields });
      expect(response.status, JSON.stringify(fields).slice(0, 60)).toBe(400);
      const html = await response.text();
      const field = message.startsWith("Choose") ? "rating" : message.startsWith("Add") ? "headline" : "body";
      expect(html).toContain(
        `id="review-${field}-error" class="field-error review-form__error">${message.replace(",", ",")}</p>`,
      );
    }
    expect(await reviewsOf(BOOK)).toEqual([]);
    expect((await figures(BOOK)).review_count).toBe(0);
  });

  it("a buyer's review appears with Verified Purchase, replaces the catalogue's rating on cards and guests' pages, and an edit keeps one review", async () => {
    const guest = createBrowser(shop.app);
    // The guest's kept copy of the page, from before the review.
    expect(await text(guest, ECHO_PAGE)).toContain("No customer reviews yet.");
    expect((await figures(ECHO)).shown_rating).toBe(5);

    const { browser, userId } = await account();
    await order(userId, [ECHO, BOOK], { name: "Grace Brewster Hopper" });
    const written = await post(browser, ECHO_PAGE, {
      intent: "review",
      rating: "4",
      headline: "Loud and clear <b>really</b>",
      body: "Good sound.\n\nEasy to set up.",
    });
    expect(written.status).toBe(302);
    expect(written.headers.get("location")).toBe(`${ECHO_PAGE}?reviewed=1#reviews`);

    const html = await text(browser, ECHO_PAGE);
    expect(html).toContain("Grace H.");
    expect(html).toContain("Verified Purchase");
    expect(html).toContain("Loud and clear &lt;b&gt;really&lt;/b&gt;");
    expect(html).not.toContain("<b>really</b>");
    expect(html).toContain("4.0 out of 5");
    expect(html).toContain("1 global rating");
    expect(html).toMatch(/4 star<\/th>[\s\S]*?100%/);
    const jsonLd = JSON.parse(
      /<script type="application\/ld\+json"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!,
    ) as Record<string, unknown>;
    expect(jsonLd.aggregateRating).toMatchObject({ "@type": "AggregateRating", ratingValue: 4, reviewCount: 1 });
    expect(jsonLd.review).toEqual([
      expect.objectContaining({
        "@type": "Review",
        name: "Loud and clear <b>really</b>",
        reviewRating: expect.objectContaining({ ratingValue: 4 }),
      }),
    ]);

    // The card on the home page: the reviews' average with its count, in place of the catalogue's 5 stars.
    const home = await text(guest, "/");
    const card = /id="product-23445930"[\s\S]*?<\/article>/.exec(home)?.[0] ?? "";
    expect(card).toContain('aria-label="Rated 4 out of 5"');
    expect(card).toMatch(/\(1<span class="visually-hidden"> rating<\/span>\)/);
    // The guest's product page shows it too: the review moved the catalogue's version.
    expect(await text(guest, ECHO_PAGE)).toContain("Grace H.");
    expect(await text(guest, "/search?q=echo")).toMatch(/Rated 4 out of 5/);

    // A second buyer: the average is unrounded (4.5), drawn as four and a half stars.
    const second = await account();
    await order(second.userId, [ECHO], { name: "Alan Turing" });
    expect(
      (await post(second.browser, ECHO_PAGE, { intent: "review", rating: "5", headline: "Excellent", body: "" }))
        .status,
    ).toBe(302);
    expect(await figures(ECHO)).toMatchObject({ review_count: 2, review_average: 4.5, shown_rating: 4.5 });
    expect(await text(guest, "/")).toMatch(
      /id="product-23445930"[\s\S]*?aria-label="Rated 4.5 out of 5"[\s\S]*?\(2<span class="visually-hidden"> ratings/,
    );

    // Editing: still one review of this account, newest text.
    expect(
      (
        await post(browser, ECHO_PAGE, {
          intent: "review",
          rating: "2",
          headline: "Changed my mind",
          body: "Stopped working.",
        })
      ).status,
    ).toBe(302);
    const rows = await reviewsOf(ECHO);
    expect(rows.filter((row) => row.user_id === userId)).toEqual([
      expect.objectContaining({ rating: 2, headline: "Changed my mind" }),
    ]);
    expect(await figures(ECHO)).toMatchObject({ review_count: 2, review_average: 3.5 });
    const edited = await text(browser, ECHO_PAGE);
    expect(edited).toContain("3.5 out of 5");
    expect(edited).toContain("You have reviewed this product.");
  });

  it("the console hides a review: gone from the page, not counted, audited; Show brings it back", async () => {
    const operator = createBrowser(shop.app);
    expect(
      (await post(operator, "/login", { intent: "sign-in", email: "operator@reviews.test", password: PASSWORD }))
        .status,
    ).toBe(302);
    const before = await figures(ECHO);
    const list = await text(operator, "/admin/reviews");
    expect(list).toContain("Changed my mind");
    const target = (await reviewsOf(ECHO)).find((row) => row.headline === "Excellent")!;
    expect((await post(operator, "/admin/reviews", { intent: "hide", reviewId: target.id })).status).toBe(200);
    expect(await figures(ECHO)).toMatchObject({ review_count: before.review_count - 1, review_average: 2 });
    expect(await text(createBrowser(shop.app), ECHO_PAGE)).not.toContain("Excellent");
    const audit = await getDatabase()
      .db.selectFrom("audit_log")
      .select(["action", "subject", "operator_email"])
      .where("subject", "=", target.id)
      .execute();
    expect(audit).toEqual([{ action: "review.hide", subject: target.id, operator_email: "operator@reviews.test" }]);
    expect((await post(operator, "/admin/reviews", { intent: "show", reviewId: target.id })).status).toBe(200);
    expect(await figures(ECHO)).toMatchObject({
      review_count: before.review_count,
      review_average: before.review_average,
    });
    // A shopper cannot.
    const { browser } = await account();
    expect((await post(browser, "/admin/reviews", { intent: "hide", reviewId: target.id })).status).toBe(404);
  });

  it("asks once per order, REVIEW_REQUEST_DAYS after shipping, not when reviewed or opted out, with a one-click unsubscribe", async () => {
    const db = getDatabase().db;
    const due = await account();
    const dueOrder = await order(due.userId, [BOOK], { shippedDaysAgo: 8 });
    const early = await account();
    await order(early.userId, [BOOK], { shippedDaysAgo: 6 });
    const reviewed = await account();
    const reviewedOrder = await order(reviewed.userId, [ECHO], { shippedDaysAgo: 9 });
    expect(
      (await post(reviewed.browser, ECHO_PAGE, { intent: "review", rating: "3", headline: "Fine", body: "" })).status,
    ).toBe(302);
    const ancient = await account();
    await order(ancient.userId, [BOOK], { shippedDaysAgo: 200 });

    const requestsTo = (email: string) =>
      catcher.to(email).filter((message) => message.subject.startsWith("How was your"));
    const first = await shop.services.reviewRequests.runOnce();
    expect(first.sent).toBeGreaterThanOrEqual(1);
    expect(await shop.services.reviewRequests.runOnce()).toEqual({ sent: 0, skipped: 0 });
    await shop.emailSender.deliverDue();
    expect(requestsTo(early.email)).toEqual([]);
    expect(requestsTo(reviewed.email)).toEqual([]);
    expect(requestsTo(ancient.email)).toEqual([]);
    expect(
      await db.selectFrom("review_requests").select("outcome").where("order_id", "=", reviewedOrder).executeTakeFirst(),
    ).toEqual({ outcome: "skipped" });
    const [mail, ...more] = requestsTo(due.email);
    expect(more).toEqual([]);
    expect(mail!.header("Subject")).toBe(
      "How was your The Lean Startup: How Constant Innovation Creates Radically Successful Businesses?",
    );
    expect(
      await db.selectFrom("review_requests").select("outcome").where("order_id", "=", dueOrder).executeTakeFirst(),
    ).toEqual({ outcome: "sent" });
    const unsubscribe = /^<(http:\/\/[^>]+\/unsubscribe\?token=[A-Za-z0-9_-]{43})>$/.exec(
      mail!.header("List-Unsubscribe"),
    )?.[1];
    expect(unsubscribe).toBeTruthy();
    expect(mail!.header("List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(mail!.links).toContain(unsubscribe);
    const reviewLink = mail!.links.find((link) => link.includes("/write-a-review/"))!;
    const toForm = await page(due.browser, new URL(reviewLink).pathname);
    expect(toForm.status).toBe(302);
    expect(toForm.headers.get("location")).toBe("/products/the-lean-startup?review=write#write-review");

    // Opening the link only asks; the mail client's one-click POST (no cookie, no Origin) unsubscribes.
    const path = new URL(unsubscribe!).pathname + new URL(unsubscribe!).search;
    const opened = await page(createBrowser(shop.app), path);
    expect(opened.headers.get("cache-control")).toBe("private, no-store");
    expect(await opened.text()).toContain("Stop review requests to this e-mail address?");
    expect(await db.selectFrom("email_opt_outs").selectAll().where("email", "=", due.email).execute()).toEqual([]);
    const oneClick = await shop.app.request(`http://shop.test${path}`, {
      method: "POST",
      headers: { host: "shop.test", "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    expect(
      await db.selectFrom("email_opt_outs").select(["email", "purpose"]).where("email", "=", due.email).execute(),
    ).toEqual([{ email: due.email, purpose: "review-requests" }]);

    // The next order of that address is not asked about.
    await order(due.userId, [ECHO], { shippedDaysAgo: 8 });
    await shop.services.reviewRequests.runOnce();
    await shop.emailSender.deliverDue();
    expect(requestsTo(due.email)).toHaveLength(1);
  });

  it("the order page links each item of a qualifying order to its review form", async () => {
    const { browser, userId } = await account();
    const orderId = await order(userId, [BOOK]);
    const number = (
      await getDatabase().db.selectFrom("orders").select("number").where("id", "=", orderId).executeTakeFirstOrThrow()
    ).number;
    expect(await text(browser, `/orders/${number}`)).toContain(
      `href="/write-a-review/${BOOK}">Write a customer review</a>`,
    );
  });
});
