// Shipping zones, their regions and methods, and tax rates: the console's audited changes, and the rates the pricing
// function reads.

import { sql } from "kysely";
import { countryName, US_STATES } from "#shared/address";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { formatRate } from "#shared/pricing";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import type { DB, Writer } from "#server/db/client";
import type { ShippingZoneRates, ShopRates, TaxRateInput, WeightTier } from "#server/pricing/price-order";

export interface ZoneInput {
  name: string;
  countries: string[];
  /** US states; only with US among the countries. Empty: the whole of the United States. */
  states: string[];
}

export interface MethodInput {
  name: string;
  estimate: string;
  priceCents: number;
  freeOverCents: number | null;
  weightTiers: WeightTier[];
}

export interface TaxRateFormInput {
  country: string;
  state: string;
  rate: number;
  taxesShipping: boolean;
  /** "Charge this tax on gift cards": untaxed unless a rate says so (decision 033). */
  taxesGiftCards?: boolean;
}

const US = "US";

function stateName(code: string): string {
  return US_STATES.find(([state]) => state === code)?.[1] ?? code;
}

/** A shipping method's row, as the pricing reads it. */
interface MethodRow {
  id: string;
  zone_id: string;
  name: string;
  estimate: string;
  price_cents: number;
  free_over_cents: number | null;
  weight_tiers: WeightTier[];
}

/** A tax rate's row, as the pricing reads it. */
interface TaxRateRow {
  id: string;
  country: string;
  state: string;
  rate: number;
  taxes_shipping: boolean;
  taxes_gift_cards: boolean;
}

/** The zones (in their order) with their regions and methods (each in its order). */
function zonesOf(
  zones: readonly { id: string; name: string }[],
  regions: readonly { zone_id: string; country: string; state: string }[],
  methods: readonly MethodRow[],
): ShippingZoneRates[] {
  return zones.map((zone) => {
    const own = regions.filter((region) => region.zone_id === zone.id);
    return {
      id: zone.id,
      name: zone.name,
      countries: [...new Set(own.map((region) => region.country))],
      states: own.filter((region) => region.state !== "").map((region) => region.state),
      methods: methods
        .filter((method) => method.zone_id === zone.id)
        .map((method) => ({
          id: method.id,
          name: method.name,
          estimate: method.estimate,
          priceCents: method.price_cents,
          freeOverCents: method.free_over_cents,
          weightTiers: method.weight_tiers,
        })),
    };
  });
}

function taxRatesOf(rows: readonly TaxRateRow[]): TaxRateInput[] {
  return rows.map((row) => ({
    id: row.id,
    country: row.country,
    state: row.state === "" ? null : row.state,
    rate: row.rate,
    taxesShipping: row.taxes_shipping,
    taxesGiftCards: row.taxes_gift_cards,
  }));
}

/**
 * The shop's delivery options and tax rates: shipping zones (the countries and US states each covers), their
 * methods, and tax rates by destination. The one module that writes shipping_zones, shipping_zone_regions,
 * shipping_methods and tax_rates; every change is audited in its own transaction. Checkout reads `loadRates` and
 * hands it to the pricing function.
 */
export function createShippingService(
  db: DB,
  { catalogue }: { catalogue: { currentVersion(): Promise<bigint>; noteWrite(): void } },
) {
  let cached: { version: bigint; read: Promise<ShopRates> } | undefined;

  /** The zones with their regions and methods, in the operator's order. */
  async function readZones(reader: DB | Writer = db): Promise<ShippingZoneRates[]> {
    const [zones, regions, methods] = await Promise.all([
      reader.selectFrom("shipping_zones").select(["id", "name"]).orderBy("position").orderBy("created_at").execute(),
      reader
        .selectFrom("shipping_zone_regions")
        .select(["zone_id", "country", "state"])
        .orderBy("country")
        .orderBy("state")
        .execute(),
      reader.selectFrom("shipping_methods").selectAll().orderBy("position").orderBy("created_at").execute(),
    ]);
    return zonesOf(zones, regions, methods);
  }

  async function readTaxRates(): Promise<TaxRateInput[]> {
    return taxRatesOf(await db.selectFrom("tax_rates").selectAll().orderBy("country").orderBy("state").execute());
  }

  /**
   * Refuses a region already in another zone, naming it: a US state is taken by a zone listing it or the whole
   * United States, and the whole United States by a zone listing any of it.
   */
  async function checkRegionsFree(trx: Writer, input: ZoneInput, exceptZoneId: string | null): Promise<void> {
    const others = (await readZones(trx)).filter((zone) => zone.id !== exceptZoneId);
    for (const country of input.countries) {
      const holder = others.find((zone) => zone.countries.includes(country));
      if (!holder) continue;
      if (country === US) {
        const wanted = input.states;
        const overlaps = (zone: ShippingZoneRates) =>
          zone.countries.includes(US) &&
          (wanted.length === 0 || zone.states.length === 0 || zone.states.some((state) => wanted.includes(state)));
        const clash = others.find(overlaps);
        if (!clash) continue;
        const state = wanted.find((code) => clash.states.includes(code));
        const what = state ? stateName(state) : "United States";
        throw new AppError("ALREADY_IN_ZONE", `${what} is already in the zone “${clash.name}”.`, {
          details: { field: state ? "states" : "countries" },
        });
      }
      throw new AppError("ALREADY_IN_ZONE", `${countryName(country)} is already in the zone “${holder.name}”.`, {
        details: { field: "countries" },
      });
    }
  }

  function checkZoneInput(input: ZoneInput): void {
    if (input.states.length > 0 && !input.countries.includes(US)) {
      throw new AppError("INVALID_INPUT", "States can only be given with the United States (US) among the countries.", {
        details: { field: "states" },
      });
    }
  }

  async function writeRegions(trx: Writer, zoneId: string, input: ZoneInput): Promise<void> {
    await trx.deleteFrom("shipping_zone_regions").where("zone_id", "=", zoneId).execute();
    const rows = input.countries.flatMap((country) =>
      country === US && input.states.length > 0
        ? input.states.map((state) => ({ zone_id: zoneId, country, state }))
        : [{ zone_id: zoneId, country, state: "" }],
    );
    await trx.insertInto("shipping_zone_regions").values(rows).execute();
  }

  /** A unique violation on the name, in our words. */
  async function withNameCheck<T>(run: () => Promise<T>, message: string): Promise<T> {
    try {
      return await run();
    } catch (error) {
      // 23505, unique_violation: the name is another's (its unique index); anything else is not ours to word.
      if ((error as { code?: string }).code === "23505")
        throw new AppError("INVALID_INPUT", message, { details: { field: "name" } });
      throw error;
    }
  }

  const zoneAudit = (zone: ZoneInput) => ({
    name: zone.name,
    countries: zone.countries.join(" "),
    states: zone.states.join(" "),
  });
  const methodAudit = (method: MethodInput) => ({
    name: method.name,
    estimate: method.estimate,
    price: formatCents(method.priceCents),
    freeOver: method.freeOverCents === null ? null : formatCents(method.freeOverCents),
    weightTiers: method.weightTiers.map((tier) => `${tier.upToGrams} g = ${formatCents(tier.priceCents)}`).join(", "),
  });
  const rateAudit = (rate: TaxRateFormInput) => ({
    country: rate.country,
    state: rate.state,
    rate: formatRate(rate.rate),
    taxShipping: rate.taxesShipping,
    taxGiftCards: rate.taxesGiftCards ?? false,
  });

  /**
   * Every zone and rate, as the pricing function takes them: read once per catalogue version, which a trigger moves
   * on every change to these tables (migration 0042), so every instance quotes a changed rate within
   * CATALOGUE_VERSION_CHECK_MS, and this one at once (its writes note the change).
   */
  async function loadRates(): Promise<ShopRates> {
    const version = await catalogue.currentVersion();
    if (cached?.version === version) return cached.read;
    const read = readRates().catch((error: unknown) => {
      // A failed read (the database is down) is not kept: the next quote asks again.
      if (cached?.read === read) cached = undefined;
      throw error;
    });
    cached = { version, read };
    return read;
  }

  async function readRates(): Promise<ShopRates> {
    // One statement, not four: every quote reads them (the payment page, each payment), and each statement costs the
    // server a round trip's CPU (on PGlite, the database's own work too). Same orders as the console's reads.
    const { rows } = await sql<{
      zones: { id: string; name: string }[];
      regions: { zone_id: string; country: string; state: string }[];
      methods: MethodRow[];
      tax_rates: TaxRateRow[];
    }>`select
        coalesce((select json_agg(json_build_object('id', z.id, 'name', z.name) order by z.position, z.created_at)
          from shipping_zones z), '[]') as zones,
        coalesce((select json_agg(json_build_object('zone_id', r.zone_id, 'country', r.country, 'state', r.state)
          order by r.country, r.state) from shipping_zone_regions r), '[]') as regions,
        coalesce((select json_agg(m order by m.position, m.created_at) from shipping_methods m), '[]') as methods,
        coalesce((select json_agg(t order by t.country, t.state) from tax_rates t), '[]') as tax_rates`.execute(db);
    const { zones, regions, methods, tax_rates: taxRates } = rows[0]!;
    return { zones: zonesOf(zones, regions, methods), taxRates: taxRatesOf(taxRates) };
  }

  const writes = {
    async createZone(actor: Actor, input: ZoneInput): Promise<string> {
      checkZoneInput(input);
      return withNameCheck(
        () =>
          db.transaction().execute(async (trx) => {
            // One zone change at a time: two operators adding the same country to two zones cannot both pass the check.
            await sql`lock table shipping_zone_regions in share row exclusive mode`.execute(trx);
            await checkRegionsFree(trx, input, null);
            const { id } = await trx
              .insertInto("shipping_zones")
              .values({ name: input.name })
              .returning("id")
              .executeTakeFirstOrThrow();
            await writeRegions(trx, id, input);
            await recordAudit(trx, actor, {
              action: "shipping.zone.create",
              subject: input.name,
              before: null,
              after: zoneAudit(input),
            });
            return id;
          }),
        `A zone named “${input.name}” exists already.`,
      );
    },

    async updateZone(actor: Actor, zoneId: string, input: ZoneInput): Promise<void> {
      checkZoneInput(input);
      await withNameCheck(
        () =>
          db.transaction().execute(async (trx) => {
            await sql`lock table shipping_zone_regions in share row exclusive mode`.execute(trx);
            const before = (await readZones(trx)).find((zone) => zone.id === zoneId);
            if (!before) throw new AppError("NOT_FOUND", "That zone no longer exists.");
            await checkRegionsFree(trx, input, zoneId);
            await trx.updateTable("shipping_zones").set({ name: input.name }).where("id", "=", zoneId).execute();
            await writeRegions(trx, zoneId, input);
            await recordAudit(trx, actor, {
              action: "shipping.zone.update",
              subject: before.name,
              before: zoneAudit(before),
              after: zoneAudit(input),
            });
          }),
        `A zone named “${input.name}” exists already.`,
      );
    },

    async removeZone(actor: Actor, zoneId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = (await readZones(trx)).find((zone) => zone.id === zoneId);
        if (!before) throw new AppError("NOT_FOUND", "That zone no longer exists.");
        await trx.deleteFrom("shipping_zones").where("id", "=", zoneId).execute();
        await recordAudit(trx, actor, {
          action: "shipping.zone.remove",
          subject: before.name,
          before: zoneAudit(before),
          after: null,
        });
      });
    },

    async addMethod(actor: Actor, zoneId: string, input: MethodInput): Promise<string> {
      return withNameCheck(
        () =>
          db.transaction().execute(async (trx) => {
            const zone = await trx
              .selectFrom("shipping_zones")
              .select("name")
              .where("id", "=", zoneId)
              .executeTakeFirst();
            if (!zone) throw new AppError("NOT_FOUND", "That zone no longer exists.");
            const { id } = await trx
              .insertInto("shipping_methods")
              .values({
                zone_id: zoneId,
                name: input.name,
                estimate: input.estimate,
                price_cents: input.priceCents,
                free_over_cents: input.freeOverCents,
                weight_tiers: JSON.stringify(input.weightTiers),
              })
              .returning("id")
              .executeTakeFirstOrThrow();
            await recordAudit(trx, actor, {
              action: "shipping.method.create",
              subject: `${zone.name}: ${input.name}`,
              before: null,
              after: methodAudit(input),
            });
            return id;
          }),
        `This zone has a method named “${input.name}” already.`,
      );
    },

    async updateMethod(actor: Actor, methodId: string, input: MethodInput): Promise<void> {
      await withNameCheck(
        () =>
          db.transaction().execute(async (trx) => {
            const before = await trx
              .selectFrom("shipping_methods")
              .innerJoin("shipping_zones", "shipping_zones.id", "shipping_methods.zone_id")
              .selectAll("shipping_methods")
              .select("shipping_zones.name as zone_name")
              .where("shipping_methods.id", "=", methodId)
              .forUpdate()
              .executeTakeFirst();
            if (!before) throw new AppError("NOT_FOUND", "That delivery method no longer exists.");
            await trx
              .updateTable("shipping_methods")
              .set({
                name: input.name,
                estimate: input.estimate,
                price_cents: input.priceCents,
                free_over_cents: input.freeOverCents,
                weight_tiers: JSON.stringify(input.weightTiers),
              })
              .where("id", "=", methodId)
              .execute();
            const old: MethodInput = {
              name: before.name,
              estimate: before.estimate,
              priceCents: before.price_cents,
              freeOverCents: before.free_over_cents,
              weightTiers: before.weight_tiers,
            };
            await recordAudit(trx, actor, {
              action: "shipping.method.update",
              subject: `${before.zone_name}: ${before.name}`,
              before: methodAudit(old),
              after: methodAudit(input),
            });
          }),
        `This zone has a method named “${input.name}” already.`,
      );
    },

    async removeMethod(actor: Actor, methodId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await trx
          .deleteFrom("shipping_methods")
          .where("id", "=", methodId)
          .returningAll()
          .executeTakeFirst();
        if (!before) throw new AppError("NOT_FOUND", "That delivery method no longer exists.");
        const old: MethodInput = {
          name: before.name,
          estimate: before.estimate,
          priceCents: before.price_cents,
          freeOverCents: before.free_over_cents,
          weightTiers: before.weight_tiers,
        };
        await recordAudit(trx, actor, {
          action: "shipping.method.remove",
          subject: before.name,
          before: methodAudit(old),
          after: null,
        });
      });
    },

    async addTaxRate(actor: Actor, input: TaxRateFormInput): Promise<string> {
      try {
        return await db.transaction().execute(async (trx) => {
          const { id } = await trx
            .insertInto("tax_rates")
            .values({
              country: input.country,
              state: input.state,
              rate: input.rate,
              taxes_shipping: input.taxesShipping,
              taxes_gift_cards: input.taxesGiftCards ?? false,
            })
            .returning("id")
            .executeTakeFirstOrThrow();
          await recordAudit(trx, actor, {
            action: "tax.rate.create",
            subject: input.state ? `${input.country}-${input.state}` : input.country,
            before: null,
            after: rateAudit(input),
          });
          return id;
        });
      } catch (error) {
        // 23505, unique_violation: the country or state has a rate (their unique index); anything else is not ours to word.
        if ((error as { code?: string }).code === "23505") {
          const where = input.state ? stateName(input.state) : countryName(input.country);
          throw new AppError("INVALID_INPUT", `${where} has a rate already: edit that one.`, {
            details: { field: input.state ? "state" : "country" },
          });
        }
        throw error;
      }
    },

    async updateTaxRate(
      actor: Actor,
      rateId: string,
      input: Pick<TaxRateFormInput, "rate" | "taxesShipping" | "taxesGiftCards">,
    ): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom("tax_rates")
          .selectAll()
          .where("id", "=", rateId)
          .forUpdate()
          .executeTakeFirst();
        if (!before) throw new AppError("NOT_FOUND", "That tax rate no longer exists.");
        await trx
          .updateTable("tax_rates")
          .set({
            rate: input.rate,
            taxes_shipping: input.taxesShipping,
            taxes_gift_cards: input.taxesGiftCards ?? before.taxes_gift_cards,
          })
          .where("id", "=", rateId)
          .execute();
        const old = {
          country: before.country,
          state: before.state,
          rate: before.rate,
          taxesShipping: before.taxes_shipping,
          taxesGiftCards: before.taxes_gift_cards,
        };
        await recordAudit(trx, actor, {
          action: "tax.rate.update",
          subject: before.state ? `${before.country}-${before.state}` : before.country,
          before: rateAudit(old),
          after: rateAudit({ ...old, ...input }),
        });
      });
    },

    async removeTaxRate(actor: Actor, rateId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await trx.deleteFrom("tax_rates").where("id", "=", rateId).returningAll().executeTakeFirst();
        if (!before) throw new AppError("NOT_FOUND", "That tax rate no longer exists.");
        const old = {
          country: before.country,
          state: before.state,
          rate: before.rate,
          taxesShipping: before.taxes_shipping,
          taxesGiftCards: before.taxes_gift_cards,
        };
        await recordAudit(trx, actor, {
          action: "tax.rate.remove",
          subject: before.state ? `${before.country}-${before.state}` : before.country,
          before: rateAudit(old),
          after: null,
        });
      });
    },
  };

  return {
    loadRates,
    listZones: () => readZones(),
    listTaxRates: readTaxRates,
    ...noteEachWrite(writes, () => {
      cached = undefined;
      catalogue.noteWrite();
    }),
  };
}

/** The writes, each followed by `noted` however it ends: a failed one may have written before it failed. */
function noteEachWrite<Writes extends Record<string, (...args: never[]) => Promise<unknown>>>(
  writes: Writes,
  noted: () => void,
): Writes {
  return Object.fromEntries(
    Object.entries(writes).map(([name, write]) => [
      name,
      async (...args: never[]) => {
        try {
          return await write(...args);
        } finally {
          noted();
        }
      },
    ]),
  ) as Writes;
}

export type ShippingService = ReturnType<typeof createShippingService>;
