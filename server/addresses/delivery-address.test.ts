import { afterAll, beforeAll, expect, it } from "vitest";
import Stripe from "stripe";
import { ORDER_NUMBER_PATTERN } from "#shared/orders";
import { BUILT_IN_PROCESSOR_PATH, prefixedHttpClient } from "#server/payments/payment-provider";
import {
  addDeliveryAddress,
  confirmCard,
  createHttpBrowser,
  createTestShop,
  TEST_DELIVERY_ADDRESS,
} from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const BOOK = "12321341"; // $11.96
const ECHO = "23445930"; // $98.99

type Browser = ReturnType<typeof createHttpBrowser>;
type AddressAnswer = {
  address?: Record<string, unknown>;
  contactEmail?: string | null;
  error?: { code: string; message: string; details?: { errors?: Record<string, string> } };
};

describeEachDatabase(
  "the delivery address: kept with the basket, sent to the processor as the intent's shipping",
  (getDatabase) => {
    let origin = "";
    let shop: Awaited<ReturnType<typeof createTestShop>>;
    let close: () => Promise<void> = async () => {};

    beforeAll(async () => {
      shop = await createTestShop(getDatabase());
      const running = await shop.listen(0);
      origin = `http://127.0.0.1:${running.port}`;
      close = running.close;
    });
    afterAll(() => close());

    const sdk = () =>
      new Stripe(shop.processorKeys!.secretKey, {
        host: "127.0.0.1",
        port: new URL(origin).port,
        protocol: "http",
        httpClient: prefixedHttpClient(BUILT_IN_PROCESSOR_PATH),
      });
    const postAddress = async (browser: Browser, body: Record<string, unknown>) => {
      const response = await browser.postJson("/checkout/address", body);
      return { status: response.status, body: (await response.json()) as AddressAnswer };
    };
    const shopperWith = async (...productIds: string[]) => {
      const browser = createHttpBrowser(origin);
      for (const productId of productIds)
        expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
      return browser;
    };
    const create = async (browser: Browser, total: number) => {
      const response = await browser.send(`/payments/create?total=${total}`, { method: "POST" });
      return {
        status: response.status,
        body: (await response.json()) as { clientSecret?: string; error?: { code: string; message: string } },
      };
    };
    const register = async (email: string) => {
      // Sign-in is a page action; the shop's services do the same for a test, then the browser carries the new cookie.
      const user = await shop.services.accounts.register(email, "a long and unusual passphrase 42", "127.0.0.1");
      const next = await shop.services.sessions.startSession(user);
      return { userId: user.id, browser: createHttpBrowserWithCookie(origin, next.token) };
    };

    it.each([
      ["a US ZIP of 5 digits", { country: "US", region: "CA", postalCode: "90001" }, null],
      ["a US ZIP+4, written without its hyphen", { country: "US", region: "NY", postalCode: "100011234" }, null],
      ["a US ZIP of 4 digits", { country: "US", region: "CA", postalCode: "9000" }, "postalCode"],
      ["a US address without a state", { country: "US", region: "", postalCode: "90001" }, "region"],
      ["a US state that is not one", { country: "US", region: "XX", postalCode: "90001" }, "region"],
      ["a UK postcode", { country: "GB", region: "", postalCode: "sw1a 1aa" }, null],
      ["a UK postcode that is not one", { country: "GB", postalCode: "12345" }, "postalCode"],
      ["a Canadian postal code", { country: "CA", region: "Ontario", postalCode: "K1A 0B1" }, null],
      ["a Canadian postal code that is not one", { country: "CA", postalCode: "K1A" }, "postalCode"],
      ["a German postal code", { country: "DE", postalCode: "10115" }, null],
      ["a German postal code of 4 digits", { country: "DE", postalCode: "1011" }, "postalCode"],
      ["a French postal code (no rule of its own)", { country: "FR", region: "", postalCode: "75001" }, null],
      ["a country not on the list", { country: "ZZ", postalCode: "12345" }, "country"],
    ])("country rules: %s", async (_name, fields, failing) => {
      const browser = await shopperWith(BOOK);
      const { status, body } = await postAddress(browser, { ...TEST_DELIVERY_ADDRESS, region: undefined, ...fields });
      if (failing === null) {
        expect(status, JSON.stringify(body)).toBe(200);
        expect(body.address?.country).toBe(fields.country);
      } else {
        expect(status).toBe(422);
        expect(body.error?.code).toBe("ADDRESS_INVALID");
        expect(Object.keys(body.error?.details?.errors ?? {})).toEqual([failing]);
      }
    });

    it("normalises what it keeps: trimmed, one space, postcodes upper-case, a ZIP+4 with its hyphen", async () => {
      const browser = await shopperWith(BOOK);
      const gb = await postAddress(browser, {
        ...TEST_DELIVERY_ADDRESS,
        name: "  Ada   Lovelace ",
        country: "GB",
        region: "",
        postalCode: "sw1a 1aa",
      });
      expect(gb.body.address).toMatchObject({
        name: "Ada Lovelace",
        postalCode: "SW1A 1AA",
        region: null,
        line2: null,
      });
      const us = await postAddress(browser, { ...TEST_DELIVERY_ADDRESS, postalCode: "900011234" });
      expect(us.body.address).toMatchObject({ postalCode: "90001-1234" });
    });

    it("asks a guest for the receipt e-mail, refuses unknown fields and lengths past the bounds", async () => {
      const browser = await shopperWith(BOOK);
      const { email: _email, ...withoutEmail } = TEST_DELIVERY_ADDRESS;
      void _email;
      const missing = await postAddress(browser, withoutEmail);
      expect(missing.status).toBe(422);
      expect(missing.body.error?.details?.errors).toEqual({ email: "Enter the e-mail address for your receipt." });
      const badEmail = await postAddress(browser, { ...TEST_DELIVERY_ADDRESS, email: "not-an-address" });
      expect(badEmail.body.error?.details?.errors?.email).toBe("Enter a valid e-mail address, like name@example.com.");
      const unknown = await postAddress(browser, { ...TEST_DELIVERY_ADDRESS, isAdmin: true });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error?.details?.errors?.form).toContain("isAdmin");
      const long = await postAddress(browser, {
        ...TEST_DELIVERY_ADDRESS,
        name: "A".repeat(101),
        line1: "B".repeat(5000),
      });
      expect(long.body.error?.details?.errors).toEqual({
        name: "The name must be at most 100 characters.",
        line1: "Address line 1 must be at most 100 characters.",
      });
      const everythingMissing = await postAddress(browser, {});
      expect(Object.keys(everythingMissing.body.error?.details?.errors ?? {}).sort()).toEqual(
        ["city", "country", "email", "line1", "name", "postalCode"].sort(),
      );
    });

    it("refuses a country named after an object's inherited property (__proto__, constructor, toString) as not on the list", async () => {
      const browser = await shopperWith(BOOK);
      for (const country of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
        const answer = await postAddress(browser, { ...TEST_DELIVERY_ADDRESS, country });
        expect(answer.status, country).toBe(422);
        expect(answer.body.error?.details?.errors?.country, country).toBe("Choose a country from the list.");
      }
    });

    it("refuses text PostgreSQL cannot store (a NUL, a lone surrogate) with a 400 naming the field, keeping nothing", async () => {
      const browser = await shopperWith(BOOK);
      const cases: [string, string][] = [
        ["line1", "1 Main\u0000St"],
        ["city", "\ud800"],
        ["name", "Ada\udc00"],
        ["email", "ada\u0000@example.com"],
        ["region", "C\u0000A"],
      ];
      for (const [field, value] of cases) {
        const answer = await postAddress(browser, { ...TEST_DELIVERY_ADDRESS, [field]: value });
        expect(answer.status, field).toBe(400);
        expect(answer.body.error?.code, field).toBe("BAD_REQUEST");
        expect(answer.body.error?.message, field).toContain(field);
      }
      const asForm = await browser.postForm(
        "/checkout/address",
        { ...TEST_DELIVERY_ADDRESS, line1: "1 Main\u0000St" },
        { accept: "application/json" },
      );
      expect(asForm.status).toBeLessThan(500);
      const basket = await browser.send("/payment", { headers: { accept: "application/json" } });
      expect(basket.status).toBeLessThan(500);
      const none = await postAddress(browser, { ...TEST_DELIVERY_ADDRESS, line2: "\ud800\u0000" });
      expect(none.status).toBe(400);
    });

    it("takes a plain form post too, answering 303 back to /payment (and ?addressError= when refused)", async () => {
      const browser = await shopperWith(BOOK);
      const saved = await browser.postForm("/checkout/address", { ...TEST_DELIVERY_ADDRESS });
      expect(saved.status).toBe(303);
      expect(saved.headers.get("location")).toBe("/payment");
      const refused = await browser.postForm(
        "/checkout/address",
        { ...TEST_DELIVERY_ADDRESS, postalCode: "nope" },
        { referer: `${origin}/payment` },
      );
      expect(refused.status).toBe(303);
      expect(refused.headers.get("location")).toBe("/payment?addressError=ADDRESS_INVALID");
    });

    it('answers 400 "Add a delivery address" from /payments/create until one is set, creating no intent', async () => {
      const browser = await shopperWith(BOOK);
      const before = await getDatabase().db.selectFrom("checkout_payments").select("payment_intent_id").execute();
      const refused = await create(browser, 1196);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "ADDRESS_REQUIRED", message: "Add a delivery address" });
      expect(await getDatabase().db.selectFrom("checkout_payments").select("payment_intent_id").execute()).toHaveLength(
        before.length,
      );
      await addDeliveryAddress(browser);
      expect((await create(browser, 1196)).status).toBe(201);
    });

    it("sends the address as the intent's shipping, updates the open intent when it changes, and the order keeps it", async () => {
      const browser = await shopperWith(ECHO);
      await addDeliveryAddress(browser);
      const first = await create(browser, 9899);
      const intentId = first.body.clientSecret?.split("_secret_")[0] ?? "";
      const read = await sdk().paymentIntents.retrieve(intentId);
      expect(read.shipping).toEqual({
        name: "Ada Lovelace",
        address: {
          line1: "1 Main Street",
          line2: null,
          city: "Los Angeles",
          state: "CA",
          postal_code: "90001",
          country: "US",
        },
        carrier: null,
        phone: null,
        tracking_number: null,
      });

      await postAddress(browser, {
        ...TEST_DELIVERY_ADDRESS,
        name: "Grace Hopper",
        line1: "10 Downing Street",
        city: "London",
        region: "",
        postalCode: "SW1A 2AA",
        country: "GB",
      });
      const second = await create(browser, 9899);
      expect(second.body.clientSecret).toBe(first.body.clientSecret);
      expect((await sdk().paymentIntents.retrieve(intentId)).shipping).toMatchObject({
        name: "Grace Hopper",
        address: { line1: "10 Downing Street", city: "London", state: null, postal_code: "SW1A 2AA", country: "GB" },
      });

      const confirmed = await confirmCard(
        origin,
        second.body.clientSecret ?? "",
        shop.processorKeys!.publishableKey,
        "4242424242424242",
      );
      expect(confirmed.body.status).toBe("succeeded");
      const recorded = (await (await browser.postJson("/orders/record", { paymentIntentId: intentId })).json()) as {
        orderNumber: string;
      };
      expect(recorded.orderNumber).toMatch(ORDER_NUMBER_PATTERN);
      const order = await getDatabase()
        .db.selectFrom("orders")
        .select(["number", "delivery_address", "contact_email", "card_brand", "card_last4", "status"])
        .where("id", "=", intentId)
        .executeTakeFirstOrThrow();
      expect(order).toEqual({
        number: recorded.orderNumber,
        delivery_address: {
          name: "Grace Hopper",
          line1: "10 Downing Street",
          line2: null,
          city: "London",
          region: null,
          postalCode: "SW1A 2AA",
          country: "GB",
        },
        contact_email: "ada@example.com",
        card_brand: "visa",
        card_last4: "4242",
        status: "paid",
      });
    });

    it("a reload or another tab of the same shopper has the address; another shopper does not", async () => {
      const browser = await shopperWith(BOOK);
      await addDeliveryAddress(browser);
      expect(await shop.services.addresses.getCheckoutAddress(await ownerOf(browser))).toMatchObject({
        address: { name: "Ada Lovelace" },
        contactEmail: "ada@example.com",
      });
      const stranger = await shopperWith(BOOK);
      expect(await shop.services.addresses.getCheckoutAddress(await ownerOf(stranger))).toBeNull();
    });

    it("an account keeps its addresses: the last one offered next time, another chosen, one deleted", async () => {
      const { userId, browser } = await register(`saved-${Date.now()}@example.com`);
      expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
      await addDeliveryAddress(browser, { isSignedIn: true });
      const { email: _email, ...home } = TEST_DELIVERY_ADDRESS;
      void _email;
      const work = { ...home, line1: "500 Office Park", city: "San Jose", postalCode: "95113" };
      expect((await postAddress(browser, work)).status).toBe(200);
      // An account gives no receipt e-mail: its own address is used.
      expect((await postAddress(browser, { ...work, email: "someone@else.example" })).status).toBe(200);
      const saved = await shop.services.addresses.listSavedAddresses(userId);
      expect(saved.map((entry) => entry.address.line1)).toEqual(["500 Office Park", "1 Main Street"]);

      // Next checkout (the one in progress forgotten): the last address used is offered.
      await getDatabase().db.deleteFrom("checkout_addresses").where("user_id", "=", userId).execute();
      expect((await shop.services.addresses.getCheckoutAddress({ userId }))?.address.line1).toBe("500 Office Park");
      expect((await create(browser, 1196)).status).toBe(201);

      const homeId = saved[1]?.id ?? "";
      const chosen = await postAddress(browser, { savedAddressId: homeId });
      expect(chosen.status).toBe(200);
      expect(chosen.body.address?.line1).toBe("1 Main Street");

      const stranger = await register(`stranger-${Date.now()}@example.com`);
      expect((await postAddress(stranger.browser, { savedAddressId: homeId })).status).toBe(404);
      expect(await shop.services.addresses.deleteSavedAddress(stranger.userId, homeId)).toBe(false);
      expect(await shop.services.addresses.deleteSavedAddress(userId, homeId)).toBe(true);
      expect((await shop.services.addresses.listSavedAddresses(userId)).map((entry) => entry.address.line1)).toEqual([
        "500 Office Park",
      ]);
    });

    /** The guest behind a browser: its basket's session. */
    async function ownerOf(browser: Browser) {
      const session = await shop.services.sessions.findSession(
        decodeURIComponent((browser.cookie ?? "").split("=")[1] ?? ""),
      );
      if (!session) throw new Error("no session");
      return session.user ? { userId: session.user.id } : { sessionId: session.id };
    }
  },
);

function createHttpBrowserWithCookie(origin: string, token: string) {
  const browser = createHttpBrowser(origin);
  const send: Browser["send"] = (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("cookie", `sf_session=${token}`);
    return browser.send(path, { ...init, headers });
  };
  return {
    ...browser,
    send,
    postJson: (path: string, body: unknown) =>
      send(path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  };
}
