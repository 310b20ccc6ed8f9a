import { describe, expect, it } from "vitest";
import { priceOrder } from "#server/pricing/price-order";
import { htmlToText } from "./render";
import { orderConfirmationEmail } from "./templates/order-emails";
import { passwordResetEmail } from "./templates/account-emails";

describe("e-mail rendering", () => {
  it("gives the plain-text part the HTML's words, table rows on their lines and every link written out", () => {
    const email = orderConfirmationEmail({
      shop: { url: "https://shop.example/", name: "Storefront", logo: null, postalAddress: null },
      orderUrl: "https://shop.example/orders/SF-2611-8K3Q",
      orderNumber: "SF-2611-8K3Q",
      deliveryAddress: {
        name: "Ada Lovelace",
        line1: "12 Main St",
        line2: null,
        city: "Springfield",
        region: "IL",
        postalCode: "62701",
        country: "US",
      },
      totalCents: 125_096,
      pricing: null,
      items: [
        {
          productId: "1",
          title: "Books & <Things>",
          priceCents: 1196,
          quantity: 2,
          rating: 4,
          image: { src: "/a.webp", width: 1, height: 1 },
        },
        {
          productId: "2",
          title: "Monitor",
          priceCents: 122_704,
          quantity: 1,
          rating: 5,
          image: { src: "/b.webp", width: 1, height: 1 },
        },
      ],
    });
    expect(email.subject).toBe("Your Storefront order SF-2611-8K3Q: $1,250.96");
    expect(email.html).toContain("Books &amp; &lt;Things&gt;");
    expect(email.text).toContain("2 × Books & <Things> $23.92\n");
    expect(email.text).toContain("1 × Monitor $1,227.04\n");
    expect(email.text).toContain("Order total $1,250.96");
    expect(email.text).toContain("Ada Lovelace\n12 Main St\n");
    expect(email.text).toContain("View your order: https://shop.example/orders/SF-2611-8K3Q");
    expect(email.text).not.toMatch(/<[a-z]/);
  });

  it("lists the order's breakdown as it was charged: items, delivery, total before tax, each tax rate, total", () => {
    const book = {
      productId: "12321341",
      title: "The Lean Startup",
      priceCents: 1196,
      quantity: 1,
      rating: 4,
      image: { src: "/a.webp", width: 1, height: 1 },
    };
    const pricing = priceOrder({
      lines: [{ key: book.productId, title: book.title, unitPriceCents: 1196, quantity: 1 }],
      address: { country: "US", state: "CA" },
      methodId: "express",
      promotion: { kind: "none" },
      rates: {
        zones: [
          {
            id: "z",
            name: "Everywhere",
            countries: ["US"],
            states: [],
            methods: [
              {
                id: "express",
                name: "Express delivery",
                estimate: "1-2 business days",
                priceCents: 1499,
                freeOverCents: null,
                weightTiers: [],
              },
            ],
          },
        ],
        taxRates: [{ id: "ca", country: "US", state: "CA", rate: 7250, taxesShipping: false }],
      },
    });
    const email = orderConfirmationEmail({
      shop: { url: "https://shop.example/", name: "Storefront", logo: null, postalAddress: null },
      orderUrl: "https://shop.example/orders/SF-2611-8K3Q",
      orderNumber: "SF-2611-8K3Q",
      deliveryAddress: null,
      totalCents: pricing.totalCents,
      pricing,
      items: [book],
    });
    expect(email.subject).toBe("Your Storefront order SF-2611-8K3Q: $27.82");
    expect(email.text).toContain(
      "Items $11.96\nShipping & handling (Express delivery) $14.99\nTotal before tax $26.95\nTax (US-CA 7.25%) $0.87\nOrder total $27.82",
    );
  });

  it("writes a link whose words are its address once", () => {
    expect(htmlToText('<p>See <a href="https://a.example/x?y=1&amp;z=2">https://a.example/x?y=1&amp;z=2</a></p>')).toBe(
      "See https://a.example/x?y=1&z=2\n",
    );
  });

  it("puts the reset link in both parts", () => {
    const email = passwordResetEmail({
      shop: { url: "https://shop.example/", name: "Storefront", logo: null, postalAddress: null },
      resetUrl: "https://shop.example/reset-password?token=abc",
    });
    expect(email.html).toContain('href="https://shop.example/reset-password?token=abc"');
    expect(email.text).toContain("Set a new password: https://shop.example/reset-password?token=abc");
  });
});
