import { describe, expect, it } from "vitest";
import { htmlToText } from "./render";
import { orderConfirmationEmail } from "./templates/order-emails";
import { passwordResetEmail } from "./templates/account-emails";

describe("e-mail rendering", () => {
  it("gives the plain-text part the HTML's words, table rows on their lines and every link written out", () => {
    const email = orderConfirmationEmail({
      shopUrl: "https://shop.example/",
      orderUrl: "https://shop.example/orders/SF-2611-8K3Q",
      orderNumber: "SF-2611-8K3Q",
      deliveryAddress: { name: "Ada Lovelace", line1: "12 Main St", line2: null, city: "Springfield", region: "IL", postalCode: "62701", country: "US" },
      totalCents: 125_096,
      items: [
        { productId: "1", title: "Books & <Things>", priceCents: 1196, quantity: 2, rating: 4, image: { src: "/a.webp", width: 1, height: 1 } },
        { productId: "2", title: "Monitor", priceCents: 122_704, quantity: 1, rating: 5, image: { src: "/b.webp", width: 1, height: 1 } },
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

  it("writes a link whose words are its address once", () => {
    expect(htmlToText('<p>See <a href="https://a.example/x?y=1&amp;z=2">https://a.example/x?y=1&amp;z=2</a></p>')).toBe("See https://a.example/x?y=1&z=2\n");
  });

  it("puts the reset link in both parts", () => {
    const email = passwordResetEmail({ shopUrl: "https://shop.example/", resetUrl: "https://shop.example/reset-password?token=abc" });
    expect(email.html).toContain('href="https://shop.example/reset-password?token=abc"');
    expect(email.text).toContain("Set a new password: https://shop.example/reset-password?token=abc");
  });
});
