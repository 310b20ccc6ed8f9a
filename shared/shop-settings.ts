/**
 * The shop's own settings as pages, e-mails and the console read them (server/settings owns them): the defaults a
 * shop that saved nothing reads, the limits the console's form holds them to, and the shopper-facing legal texts a
 * shop can use as they are. Plain data, no zod: the header and the legal pages import it.
 */

/** What the header, titles and e-mails say when the shop has not named itself. */
export const DEFAULT_SHOP_NAME = "Storefront";
export const DEFAULT_RETURN_WINDOW_DAYS = 30;
export const DEFAULT_RETURN_FEE_CENTS = 0;

export const MAX_SHOP_NAME_LENGTH = 80;
export const MAX_FROM_NAME_LENGTH = 80;
export const MAX_ADDRESS_LENGTH = 500;
export const MAX_LEGAL_TEXT_LENGTH = 20_000;
export const MAX_RETURN_WINDOW_DAYS = 365;
/** The most a return may cost the shopper: $1,000.00. */
export const MAX_RETURN_FEE_CENTS = 100_000;
/** The logo's upload limit: the picture store's checks apply within it. */
export const MAX_LOGO_BYTES = 1024 * 1024;

/** The shop's logo as the picture store keeps it (WebP at a few widths). */
export interface ShopLogo {
  src: string;
  srcSet: string;
  width: number;
  height: number;
}

/** What every page with the header needs: the shop's name and logo. */
export interface ShopIdentity {
  name: string;
  logo: ShopLogo | null;
  /** Where shoppers write to (the footer's "Contact us"), when the shop has given one. */
  supportEmail: string | null;
}

export type LegalPage = "conditions" | "privacy" | "returns";

export const LEGAL_PAGE_TITLES: Record<LegalPage, string> = {
  conditions: "Conditions of Use",
  privacy: "Privacy Notice",
  returns: "Returns",
};

/**
 * The legal pages' texts until the shop writes its own: paragraphs apart by a blank line, a paragraph starting with
 * "# " a heading. They speak to shoppers and name no number the settings hold (the return window and fee are shown
 * beside the Returns text, from the settings), so they stay true when those change.
 */
export const DEFAULT_LEGAL_TEXTS: Record<LegalPage, string> = {
  conditions: `These conditions apply when you shop with us. By creating an account or placing an order you accept them.

# Prices and payment
Prices are in US dollars. The price you pay is the one your basket shows when you pay; if a price changed since you added an item, the basket tells you before you pay. Your card is charged once, when you place your order.

# Your order
Your order is confirmed when we have your payment, and we send you a confirmation by e-mail. If a payment does not match your basket, we do not send the order and we refund the payment in full.

# Delivery
We send your order to the address you give at checkout, by the delivery option you choose. We e-mail you when it has shipped.

# Returns and refunds
You may return items as our Returns page describes. Refunds go back to the card you paid with, and we tell you by e-mail when we have sent one.

# Your account
Keep your password to yourself. You can change it, sign out on every device, or delete your account at any time from Your Account.

# Questions
If something is not right, reply to any e-mail from us and we will help.`,
  privacy: `This notice says what we keep about you, why, for how long, and how to have it erased.

# What we keep
Your account: your e-mail address, whether you confirmed it, and your password in a form nobody can read back.
Your orders: the items, prices, the delivery address and when you ordered, so that we can send them and keep our books.
Your basket, so that it is still there when you come back.
The e-mails we send you, such as order confirmations and password resets, so that none is lost or sent twice.
Sign-in attempts, for at most a day, to stop anybody guessing passwords.

# What we do not keep
Your card number: it goes straight to our payment processor and never reaches us. We use no advertising or tracking cookies; the one cookie we set keeps you signed in and keeps your basket.

# Deleting your account
From Your Account, "Delete my account" erases your account, your basket and your saved addresses at once. Your orders stay in our books, as the law requires, with your name and contact details removed. We send you one last e-mail to say it is done.

# Your rights
You can ask us for a copy of what we keep about you, or to correct it, by replying to any e-mail from us.`,
  returns: `Changed your mind, or something is not right? You can send items back to us.

# How to return an item
Open the order from Your Orders, or find it on this page with its order number and e-mail (the link in any of our order e-mails opens it too), and choose "Return or replace items": pick the items, say why, and whether you want a refund or another option of the same product. Once we approve the return, we e-mail you what to send and where. Pack the items safely, with your order number inside.

# What you can return
Items in the condition you received them, with their packaging where you can. We cannot take back items that were made or changed to your order.

# Your refund
When your return reaches us and we have checked it, we refund the items less the return fee if there is one: first to the gift card or store credit that paid for them, then to the card you paid with. We tell you by e-mail. Your bank may take a few days to show it.

# Damaged or wrong items
If an item arrived damaged, or is not what you ordered, tell us within the return window and say so in the return: we refund or replace it.`,
};

/** A text as its page draws it: blocks of lines apart by blank lines, a block starting with "# " a heading. */
export function legalTextBlocks(text: string): { heading: string | null; lines: string[] }[] {
  return text
    .trim()
    .split(/\r?\n\s*\r?\n/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) => {
      const [first = "", ...rest] = block.split(/\r?\n/);
      return first.startsWith("# ")
        ? { heading: first.slice(2).trim(), lines: rest }
        : { heading: null, lines: [first, ...rest] };
    });
}
