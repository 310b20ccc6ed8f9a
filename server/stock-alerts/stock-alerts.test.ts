import { afterAll, beforeAll, expect, it } from "vitest";
import { startSmtpCatcher } from "../testing/smtp-catcher";
import { createTestShop } from "../testing/test-app";
import { describeEachDatabase } from "../testing/test-database";
import { STOCK_ALERT_LIMITS } from "./stock-alert-service";

const ECHO = "23445930";
const BOOK = "12321341";
let counter = 0;
const uniqueEmail = () => `alert${Date.now()}${++counter}@example.com`;

/**
 * Back-in-stock alerts at the service (no page offers them until products can be out of stock): confirming by
 * e-mail, one alert per address and product, limits, and the back-in-stock e-mail written once per alert however
 * many transactions restock at once, read from a real SMTP server with its one-click unsubscribe.
 */
describeEachDatabase("back-in-stock alerts", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    shop = await createTestShop(getDatabase(), { smtp: { url: catcher.url, from: "orders@shop.test" } });
  }, 60_000);
  afterAll(async () => {
    await catcher.stop();
  });
  const alerts = () => shop.services.stockAlerts;
  const restock = (productId: string) => getDatabase().db.transaction().execute((trx) => alerts().notifyBackInStock(trx, productId));
  const mailTo = async (address: string) => {
    await shop.emailSender.deliverDue();
    return catcher.to(address);
  };

  it("asks anybody but a signed-in, confirmed owner of the address to confirm; only a confirmed alert is used", async () => {
    const address = uniqueEmail();
    expect(await alerts().subscribe({ productId: ECHO, address: ` ${address.toUpperCase()} `, user: null, ip: "10.1.0.1" })).toBe("check-email");
    expect(await alerts().subscribe({ productId: ECHO, address, user: { email: "someone.else@example.com", isEmailVerified: true }, ip: "10.1.0.1" })).toBe("check-email");
    const messages = await mailTo(address);
    expect(messages.map((message) => message.subject)).toEqual(["Confirm your alert", "Confirm your alert"]);
    // Unconfirmed: restocking sends nothing.
    expect(await restock(ECHO)).toBe(0);
    // The newer link confirms; the older one was replaced (the two may arrive in either order).
    const tokens = messages.map((message) => new URL(message.links.find((link) => link.includes("/stock-alerts/confirm"))!).searchParams.get("token")!);
    const confirmed = [];
    for (const token of tokens) confirmed.push(await alerts().confirm(token));
    expect(confirmed.toSorted()).toEqual([false, true]);
    expect(await alerts().confirm("x".repeat(43))).toBe(false);
    expect(await getDatabase().db.selectFrom("stock_alerts").select("confirmed_at").where("email", "=", address).execute()).toEqual([{ confirmed_at: expect.any(Date) }]);

    const owner = uniqueEmail();
    expect(await alerts().subscribe({ productId: ECHO, address: owner, user: { email: owner, isEmailVerified: true }, ip: "10.1.0.2" })).toBe("subscribed");
    expect(await alerts().subscribe({ productId: ECHO, address: owner, user: { email: owner, isEmailVerified: true }, ip: "10.1.0.2" })).toBe("subscribed");
    expect(await mailTo(owner)).toEqual([]);
  });

  it("writes one e-mail per confirmed alert when restocks race, each alert used once, with a one-click unsubscribe from stock alerts", async () => {
    const owner = uniqueEmail();
    await alerts().subscribe({ productId: BOOK, address: owner, user: { email: owner, isEmailVerified: true }, ip: "10.2.0.1" });
    const written = await Promise.all([restock(BOOK), restock(BOOK), restock(BOOK)]);
    expect(written.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(await restock(BOOK)).toBe(0);
    const [mail, ...more] = await mailTo(owner);
    expect(more).toEqual([]);
    expect(mail!.header("Subject")).toMatch(/^Back in stock: The Lean Startup/);
    expect(mail!.links).toContain("http://localhost:3000/products/the-lean-startup");
    expect(mail!.header("List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    const token = new URL(/^<([^>]+)>$/.exec(mail!.header("List-Unsubscribe"))![1]!).searchParams.get("token")!;
    expect(await shop.services.emailPreferences.unsubscribe(token)).toEqual({ email: owner, purpose: "stock-alerts" });

    // A new alert of that address is used without an e-mail; its review requests are not affected.
    await alerts().subscribe({ productId: BOOK, address: owner, user: { email: owner, isEmailVerified: true }, ip: "10.2.0.1" });
    expect(await restock(BOOK)).toBe(0);
    expect(await getDatabase().db.selectFrom("email_opt_outs").select("purpose").where("email", "=", owner).execute()).toEqual([{ purpose: "stock-alerts" }]);
  });

  it("refuses the 11th alert for one address in an hour, and a malformed address, writing nothing", async () => {
    const address = uniqueEmail();
    for (let i = 0; i < STOCK_ALERT_LIMITS.perEmail.limit; i++) await alerts().subscribe({ productId: ECHO, address, user: null, ip: `10.3.0.${i}` });
    await expect(alerts().subscribe({ productId: BOOK, address, user: null, ip: "10.3.1.1" })).rejects.toMatchObject({ code: "TOO_MANY_ATTEMPTS" });
    await expect(alerts().subscribe({ productId: BOOK, address: "not an address", user: null, ip: "10.3.1.2" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await getDatabase().db.selectFrom("stock_alerts").select("product_id").where("email", "=", address).execute()).toEqual([{ product_id: ECHO }]);
  });
});
