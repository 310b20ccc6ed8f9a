// The delivery address each basket owner checks out with (kept beside the basket with the receipt's e-mail and the
// applied code), and an account's saved addresses.

import { sql } from "kysely";
import type { DeliveryAddress } from "#shared/address";
import { AppError } from "#shared/errors";
import { ownerColumn, perOwnerColumn, type BasketOwner } from "#server/basket/basket-owner";
import type { DB } from "#server/db/client";
import { preparedStatement } from "@storefront/kysely-prepared";

/** The address a basket owner is checking out with, and the e-mail a guest's receipt goes to. */
export interface CheckoutAddress {
  address: DeliveryAddress;
  /** A guest's receipt e-mail; null for an account (its own e-mail is used). */
  contactEmail: string | null;
  /** The delivery option chosen on /payment; null: the cheapest (so is one that no longer serves the address). */
  deliveryMethodId: string | null;
  /** The promotion code applied on /payment, upper case; judged again at every pricing. */
  promotionCode: string | null;
  /** A guest ticked "E-mail me about my basket and offers" with the receipt e-mail (an account's is its preference). */
  reminderConsent: boolean;
}

export interface SavedAddress {
  id: string;
  address: DeliveryAddress;
  /** ISO 8601. */
  lastUsedAt: string;
}

/** An account keeps at most this many addresses; the least recently used goes first. */
const SAVED_ADDRESS_LIMIT = 20;

/** The same address, however it was typed: the fields joined, lower-cased. */
function fingerprintOf(address: DeliveryAddress): string {
  return [
    address.name,
    address.line1,
    address.line2 ?? "",
    address.city,
    address.region ?? "",
    address.postalCode,
    address.country,
  ]
    .map((field) => field.toLowerCase())
    .join("\u001f");
}

/**
 * Delivery addresses: the one each basket owner is checking out with (kept beside the basket, so a reload or a
 * second tab has it), and the addresses an account has used (offered next time, several kept).
 */
export function createAddressService(db: DB) {
  async function rememberForAccount(userId: string, address: DeliveryAddress): Promise<void> {
    await db
      .insertInto("saved_addresses")
      .values({ user_id: userId, address: JSON.stringify(address), fingerprint: fingerprintOf(address) })
      .onConflict((conflict) =>
        conflict
          .columns(["user_id", "fingerprint"])
          .doUpdateSet({ address: JSON.stringify(address), last_used_at: sql`now()` }),
      )
      .execute();
    // Oldest beyond the limit go: an account's list stays short enough to choose from.
    await db
      .deleteFrom("saved_addresses")
      .where("user_id", "=", userId)
      .where("id", "not in", (query) =>
        query
          .selectFrom("saved_addresses")
          .select("id")
          .where("user_id", "=", userId)
          .orderBy("last_used_at", "desc")
          .limit(SAVED_ADDRESS_LIMIT),
      )
      .execute();
  }

  /** Writes the address (and a guest's consent, when the form said); other choices beside it stay. */
  async function writeCheckoutAddress(
    owner: BasketOwner,
    address: DeliveryAddress,
    contactEmail: string | null,
    reminderConsent?: boolean,
  ): Promise<CheckoutAddress> {
    const { column, value } = ownerColumn(owner);
    const consent = reminderConsent === undefined ? {} : { reminder_consent: reminderConsent };
    // What is kept beside the address comes back from the same statement.
    const row = await db
      .insertInto("checkout_addresses")
      .values({ [column]: value, address: JSON.stringify(address), contact_email: contactEmail, ...consent })
      .onConflict((conflict) =>
        conflict.column(column).doUpdateSet({
          address: JSON.stringify(address),
          contact_email: contactEmail,
          ...consent,
          updated_at: sql`now()`,
        }),
      )
      .returning(["delivery_method_id", "promotion_code", "reminder_consent"])
      .executeTakeFirst();
    if ("userId" in owner) await rememberForAccount(owner.userId, address);
    return {
      address,
      contactEmail,
      deliveryMethodId: row?.delivery_method_id ?? null,
      promotionCode: row?.promotion_code ?? null,
      reminderConsent: row?.reminder_consent ?? false,
    };
  }

  /** A choice kept beside the owner's checkout address (an account's last-used address is kept first). */
  async function setBesideAddress(
    owner: BasketOwner,
    values: { delivery_method_id?: string; promotion_code?: string | null },
  ): Promise<boolean> {
    const { column, value } = ownerColumn(owner);
    const updated = await db
      .updateTable("checkout_addresses")
      .set({ ...values, updated_at: sql`now()` })
      .where(column, "=", value)
      .executeTakeFirst();
    if (updated.numUpdatedRows > 0n) return true;
    const current = await service.getCheckoutAddress(owner);
    if (!current) return false;
    await writeCheckoutAddress(owner, current.address, current.contactEmail);
    await db.updateTable("checkout_addresses").set(values).where(column, "=", value).execute();
    return true;
  }

  /** The owner's checkout address, by either owner column: built and compiled once, every payment reads it. */
  const readCheckoutAddressBy = (column: "user_id" | "session_id") =>
    preparedStatement(db, ["owner"], (db, values: { owner: string }) =>
      db
        .selectFrom("checkout_addresses")
        .select(["address", "contact_email", "delivery_method_id", "promotion_code", "reminder_consent"])
        .where(column, "=", values.owner),
    );
  const readCheckoutAddress = perOwnerColumn(readCheckoutAddressBy);

  const service = {
    /**
     * The owner's checkout address. An account that has not chosen one in this checkout is offered the address it
     * used last.
     */
    async getCheckoutAddress(owner: BasketOwner | null): Promise<CheckoutAddress | null> {
      if (!owner) return null;
      const { column, value } = ownerColumn(owner);
      const [row] = (await readCheckoutAddress[column]({ owner: value })).rows;
      if (row)
        return {
          address: row.address,
          contactEmail: row.contact_email,
          deliveryMethodId: row.delivery_method_id,
          promotionCode: row.promotion_code,
          reminderConsent: row.reminder_consent,
        };
      if (!("userId" in owner)) return null;
      const [last] = await service.listSavedAddresses(owner.userId, 1);
      return last
        ? {
            address: last.address,
            contactEmail: null,
            deliveryMethodId: null,
            promotionCode: null,
            reminderConsent: false,
          }
        : null;
    },

    /**
     * Keeps the delivery option the owner chose, beside its address (an account checking out with the address it used
     * last gets that address kept too). Whether the option serves the address is the pricing's to judge: one that does
     * not is priced as the cheapest. False when there is no address yet to deliver to.
     */
    async setDeliveryMethod(owner: BasketOwner, methodId: string): Promise<boolean> {
      return setBesideAddress(owner, { delivery_method_id: methodId });
    },

    /**
     * Keeps the promotion code applied on /payment beside the address (null takes it off); whether it applies is
     * judged at every pricing. False when there is no address yet.
     */
    async setPromotionCode(owner: BasketOwner, code: string | null): Promise<boolean> {
      return setBesideAddress(owner, { promotion_code: code });
    },

    /**
     * Sets the address (already validated at the edge); an account also keeps it among its saved addresses. A guest's
     * tick for basket reminders is kept with it (an account's is its own preference, server/recovery).
     */
    async setCheckoutAddress(
      owner: BasketOwner,
      address: DeliveryAddress,
      contactEmail: string | null,
      reminderConsent = false,
    ): Promise<CheckoutAddress> {
      const isGuest = !("userId" in owner);
      return writeCheckoutAddress(owner, address, isGuest ? contactEmail : null, isGuest && reminderConsent);
    },

    /** Checks out with one of the account's saved addresses; another account's id is as unknown as a made-up one. */
    async chooseSavedAddress(userId: string, savedAddressId: string): Promise<CheckoutAddress> {
      const saved = await db
        .selectFrom("saved_addresses")
        .select("address")
        .where("id", "=", savedAddressId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      if (!saved)
        throw new AppError(
          "NOT_FOUND",
          "That address is no longer in your saved addresses. Please choose another or add it again.",
        );
      return writeCheckoutAddress({ userId }, saved.address, null);
    },

    /** The account's addresses, most recently used first (for /payment and the account page). */
    async listSavedAddresses(userId: string, limit = SAVED_ADDRESS_LIMIT): Promise<SavedAddress[]> {
      const rows = await db
        .selectFrom("saved_addresses")
        .select(["id", "address", "last_used_at"])
        .where("user_id", "=", userId)
        .orderBy("last_used_at", "desc")
        .orderBy("id")
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: row.id, address: row.address, lastUsedAt: row.last_used_at.toISOString() }));
    },

    /** Forgets one saved address; true when there was one of this account's to forget. */
    async deleteSavedAddress(userId: string, savedAddressId: string): Promise<boolean> {
      const deleted = await db
        .deleteFrom("saved_addresses")
        .where("id", "=", savedAddressId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return deleted.numDeletedRows > 0n;
    },

    /** At sign-in: the address a guest was checking out with becomes the account's (and one of its saved addresses). */
    async adoptGuestAddress(sessionId: string, userId: string): Promise<void> {
      const guest = await db
        .selectFrom("checkout_addresses")
        .select("address")
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      if (!guest) return;
      await writeCheckoutAddress({ userId }, guest.address, null);
      await db.deleteFrom("checkout_addresses").where("session_id", "=", sessionId).execute();
    },
  };
  return service;
}

export type AddressService = ReturnType<typeof createAddressService>;
