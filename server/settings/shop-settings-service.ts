// The shop's own settings (name, logo, addresses, return terms, time zone, legal texts): saved from the console, read
// per catalogue version with every default filled in.

import { sql, type RawBuilder, type Selectable } from "kysely";
import { AppError } from "#shared/errors";
import {
  DEFAULT_LEGAL_TEXTS,
  DEFAULT_RETURN_FEE_CENTS,
  DEFAULT_RETURN_WINDOW_DAYS,
  DEFAULT_SHOP_NAME,
  MAX_LOGO_BYTES,
  type LegalPage,
  type ShopIdentity,
  type ShopLogo,
} from "#shared/shop-settings";
import type { ShopSettingsForm } from "#shared/shop-settings-schemas";
import type { DB, Writer } from "#server/db/client";
import type { ShopSettingsTable } from "#server/db/schema";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { encodePicture, type PictureStore } from "#server/pictures/picture-store";
import { isKnownTimeZone } from "#server/calendar/shop-calendar";

/** The shop's settings with every default filled in: what pages, e-mails, the dashboard and returns read. */
export interface ShopSettings {
  name: string;
  logo: ShopLogo | null;
  supportEmail: string | null;
  /** The name e-mails come from; the address stays MAIL_FROM's. */
  emailFromName: string;
  postalAddress: string | null;
  returnAddress: string | null;
  returnWindowDays: number;
  returnFeeCents: number;
  timeZone: string;
  legalTexts: Record<LegalPage, string>;
  /** Which values are the shop's own (saved) rather than defaults: the console's form shows the difference. */
  saved: {
    name: string | null;
    emailFromName: string | null;
    timeZone: string | null;
    legalTexts: Record<LegalPage, string | null>;
  };
}

/** What a return needs to know: where it goes, how long a shopper has, and what it costs them. */
export interface ReturnPolicy {
  address: string | null;
  windowDays: number;
  feeCents: number;
}

export interface ShopSettingsDefaults {
  /** SHOP_TIME_ZONE: the shop's time zone until one is saved. */
  timeZone?: string;
  /** MAIL_FROM's display name ("Storefront <orders@…>"): the sender's name until one is saved. */
  emailFromName?: string | null;
}

type Row = Selectable<ShopSettingsTable>;
/** What the settings are made of: the row but its key and its time of change. */
type SettingsValues = Omit<Row, "singleton" | "updated_at">;

/** The audited, comparable shape of a row: what the audit log shows before and after. */
function auditedValues(row: Row): Record<string, unknown> {
  return {
    shopName: row.shop_name,
    logo: row.logo_src,
    supportEmail: row.support_email,
    emailFromName: row.email_from_name,
    postalAddress: row.postal_address,
    returnAddress: row.return_address,
    returnWindowDays: row.return_window_days,
    returnFeeCents: row.return_fee_cents,
    timeZone: row.time_zone,
    conditionsText: row.conditions_text,
    privacyText: row.privacy_text,
    returnsText: row.returns_text,
  };
}

/**
 * The shop's own settings: the one writer of shop_settings, and the one reader everybody else asks. Reads are kept per
 * catalogue version, which a trigger moves on every write to the table (migration 0032): every instance sees a saved
 * setting within CATALOGUE_VERSION_CHECK_MS, and the guest page cache, which keys its pages by the same version, drops
 * the pages that showed the old one.
 */
export function createShopSettingsService(
  db: DB,
  {
    catalogue,
    pictures,
    defaults = {},
  }: {
    catalogue: { currentVersion(): Promise<bigint>; noteWrite(): void };
    pictures: Pick<PictureStore, "storeEncoded">;
    defaults?: ShopSettingsDefaults;
  },
) {
  let cached: { version: bigint; read: Promise<ShopSettings> } | undefined;
  const defaultTimeZone = defaults.timeZone ?? "UTC";

  function toSettings(row: SettingsValues | undefined): ShopSettings {
    const logo =
      row?.logo_src && row.logo_src_set && row.logo_width && row.logo_height
        ? { src: row.logo_src, srcSet: row.logo_src_set, width: row.logo_width, height: row.logo_height }
        : null;
    const saved = {
      conditions: row?.conditions_text ?? null,
      privacy: row?.privacy_text ?? null,
      returns: row?.returns_text ?? null,
    };
    const name = row?.shop_name ?? DEFAULT_SHOP_NAME;
    return {
      name,
      logo,
      supportEmail: row?.support_email ?? null,
      emailFromName: row?.email_from_name ?? defaults.emailFromName ?? name,
      postalAddress: row?.postal_address ?? null,
      returnAddress: row?.return_address ?? null,
      returnWindowDays: row?.return_window_days ?? DEFAULT_RETURN_WINDOW_DAYS,
      returnFeeCents: row?.return_fee_cents ?? DEFAULT_RETURN_FEE_CENTS,
      timeZone: row?.time_zone ?? defaultTimeZone,
      legalTexts: {
        conditions: saved.conditions ?? DEFAULT_LEGAL_TEXTS.conditions,
        privacy: saved.privacy ?? DEFAULT_LEGAL_TEXTS.privacy,
        returns: saved.returns ?? DEFAULT_LEGAL_TEXTS.returns,
      },
      saved: {
        name: row?.shop_name ?? null,
        emailFromName: row?.email_from_name ?? null,
        timeZone: row?.time_zone ?? null,
        legalTexts: saved,
      },
    };
  }

  async function current(): Promise<ShopSettings> {
    const version = await catalogue.currentVersion();
    if (cached?.version === version) return cached.read;
    const read: Promise<ShopSettings> = db
      .selectFrom("shop_settings")
      .selectAll()
      .executeTakeFirst()
      .then(toSettings)
      .catch((error: unknown) => {
        // A failed read (the database is down) is not kept: the next request asks again.
        if (cached?.read === read) cached = undefined;
        throw error;
      });
    cached = { version, read };
    return read;
  }

  return {
    current,

    /** The settings read afresh through a transaction already open (an e-mail written in its fact's transaction). */
    async readWith(executor: Writer): Promise<ShopSettings> {
      return toSettings(await executor.selectFrom("shop_settings").selectAll().executeTakeFirst());
    },

    /**
     * The settings as one column of a statement that reads something else (an order's e-mail reads the order and the
     * shop together), as fresh as `readWith`; `fromColumn` reads what it gave.
     */
    column(): RawBuilder<SettingsValues | null> {
      return sql<SettingsValues | null>`(select to_jsonb(s) - 'singleton' - 'updated_at' from shop_settings s)`;
    },
    fromColumn(values: SettingsValues | null): ShopSettings {
      return toSettings(values ?? undefined);
    },

    /** The header's name and logo, and the footer's contact address. */
    async identity(): Promise<ShopIdentity> {
      const { name, logo, supportEmail } = await current();
      return { name, logo, supportEmail };
    },

    /** The shop's time zone: the saved one, else SHOP_TIME_ZONE. */
    async timeZone(): Promise<string> {
      return (await current()).timeZone;
    },

    /** The return address, window (days) and fee (cents). */
    async returnPolicy(): Promise<ReturnPolicy> {
      const { returnAddress, returnWindowDays, returnFeeCents } = await current();
      return { address: returnAddress, windowDays: returnWindowDays, feeCents: returnFeeCents };
    },

    /** One legal page's text: the shop's own, else the default. */
    async legalText(page: LegalPage): Promise<string> {
      return (await current()).legalTexts[page];
    },

    /**
     * Saves the console's form: every field at once (an empty one returns to its default), with a new logo when one
     * is given (checked and re-encoded by the picture store, refused past 1 MB) or none when `removeLogo`. One audit
     * entry with what changed. Refused input changes nothing.
     */
    async save(actor: Actor, form: ShopSettingsForm, logoBytes: Uint8Array | null): Promise<ShopSettings> {
      if (!isKnownTimeZone(form.timeZone))
        throw new AppError("BAD_REQUEST", "Unknown time zone. Enter one such as America/New_York or Europe/Paris.", {
          details: { field: "timeZone" },
        });
      let logo: ShopLogo | null | undefined = form.removeLogo === "on" ? null : undefined;
      if (logoBytes) {
        if (logoBytes.byteLength > MAX_LOGO_BYTES)
          throw new AppError("BAD_REQUEST", "The logo is larger than 1 MB. Choose a smaller file.", {
            details: { field: "logo" },
          });
        // The console's picture checks (the bytes, not the name: PNG, JPEG or WebP; SVG and anything else refused).
        const encoded = await encodePicture(logoBytes).catch((error: unknown) => {
          if (error instanceof AppError)
            throw new AppError(error.code, error.message.replace(/^The picture/, "The logo"), {
              details: { field: "logo" },
            });
          throw error;
        });
        logo = await pictures.storeEncoded(encoded);
      }
      await db.transaction().execute(async (trx) => {
        const before = await trx.selectFrom("shop_settings").selectAll().forUpdate().executeTakeFirstOrThrow();
        const after = await trx
          .updateTable("shop_settings")
          .set({
            shop_name: form.shopName,
            support_email: form.supportEmail,
            email_from_name: form.emailFromName,
            postal_address: form.postalAddress,
            return_address: form.returnAddress,
            return_window_days: form.returnWindowDays,
            return_fee_cents: form.returnFee,
            // The default zone typed back is not a choice: it keeps following SHOP_TIME_ZONE.
            time_zone: form.timeZone === defaultTimeZone && before.time_zone === null ? null : form.timeZone,
            conditions_text: form.conditionsText === DEFAULT_LEGAL_TEXTS.conditions ? null : form.conditionsText,
            privacy_text: form.privacyText === DEFAULT_LEGAL_TEXTS.privacy ? null : form.privacyText,
            returns_text: form.returnsText === DEFAULT_LEGAL_TEXTS.returns ? null : form.returnsText,
            ...(logo === undefined
              ? {}
              : {
                  logo_src: logo?.src ?? null,
                  logo_src_set: logo?.srcSet ?? null,
                  logo_width: logo?.width ?? null,
                  logo_height: logo?.height ?? null,
                }),
            updated_at: new Date(),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await recordAudit(trx, actor, {
          action: "settings.update",
          subject: "Shop settings",
          before: auditedValues(before),
          after: auditedValues(after),
        });
      });
      cached = undefined;
      catalogue.noteWrite();
      return current();
    },
  };
}

export type ShopSettingsService = ReturnType<typeof createShopSettingsService>;
