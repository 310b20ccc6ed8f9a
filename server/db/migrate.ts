// Running the shop's migrations to the latest under a start-up lock, from a list compiled into the bundle.

import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { migrateCurrentSchema } from "@storefront/schema-migrator";
import * as catalogue from "./migrations/0001-catalogue";
import * as sessionsAndBaskets from "./migrations/0002-sessions-and-baskets";
import * as accounts from "./migrations/0003-accounts";
import * as orders from "./migrations/0004-orders";
import * as processor from "./migrations/0005-processor";
import * as basketRevision from "./migrations/0006-basket-revision";
import * as paymentReview from "./migrations/0007-payment-review";
import * as catalogueAsData from "./migrations/0008-catalogue-as-data";
import * as basketQuantities from "./migrations/0009-basket-quantities";
import * as deliveryAndOrderLife from "./migrations/0010-delivery-and-order-life";
import * as emailAndAccountTokens from "./migrations/0011-email-and-account-tokens";
import * as paymentProcessor from "./migrations/0012-payment-processor";
import * as operatorConsole from "./migrations/0013-operator-console";
import * as orderRefunds from "./migrations/0014-order-refunds";
import * as variantsAndStock from "./migrations/0016-variants-and-stock";
import * as shippingAndTax from "./migrations/0017-shipping-and-tax";
import * as departments from "./migrations/0018-departments";
import * as newUserFixes from "./migrations/0019-new-user-fixes";
import * as reviews from "./migrations/0020-reviews";
import * as stockAlerts from "./migrations/0021-stock-alerts";
import * as promotions from "./migrations/0022-promotions";
import * as salesTotals from "./migrations/0023-sales-totals";
import * as productCsv from "./migrations/0024-product-csv";
import * as stockAlertsByVariant from "./migrations/0025-stock-alerts-by-variant";
import * as listingStockAndOptions from "./migrations/0026-listing-stock-and-options";
import * as listingCoveringIndex from "./migrations/0027-listing-covering-index";
import * as refundLinesAndOrderStatuses from "./migrations/0028-refund-lines-and-order-statuses";
import * as holdClaimsAndAlertConfirmations from "./migrations/0029-hold-claims-and-alert-confirmations";
import * as twoStepSignIn from "./migrations/0030-two-step-sign-in";
import * as trueRatingsAndVariantLowStock from "./migrations/0031-true-ratings-and-variant-low-stock";
import * as shopSettings from "./migrations/0032-shop-settings";
import * as staffRoles from "./migrations/0033-staff-roles";
import * as basketRecovery from "./migrations/0036-basket-recovery";
import * as balanceLedger from "./migrations/0037-balance-ledger";
import * as giftCards from "./migrations/0038-gift-cards";
import * as returns from "./migrations/0039-returns";
import * as withdrawals from "./migrations/0040-withdrawals";
import * as giftCardsOutOfSales from "./migrations/0041-gift-cards-out-of-sales";
import * as shippingMovesCatalogueVersion from "./migrations/0042-shipping-moves-catalogue-version";
import * as limitedStockWritesOnlyChanges from "./migrations/0043-limited-stock-writes-only-changes";

/**
 * Every migration, in order. Listed here rather than read from the folder at run time, so the bundled
 * server carries them. Never edit one that has shipped: add the next.
 */
const migrations: Record<string, Migration> = {
  "0001-catalogue": catalogue,
  "0002-sessions-and-baskets": sessionsAndBaskets,
  "0003-accounts": accounts,
  "0004-orders": orders,
  "0005-processor": processor,
  "0006-basket-revision": basketRevision,
  "0007-payment-review": paymentReview,
  "0008-catalogue-as-data": catalogueAsData,
  "0009-basket-quantities": basketQuantities,
  "0010-delivery-and-order-life": deliveryAndOrderLife,
  "0011-email-and-account-tokens": emailAndAccountTokens,
  "0012-payment-processor": paymentProcessor,
  "0013-operator-console": operatorConsole,
  "0014-order-refunds": orderRefunds,
  "0016-variants-and-stock": variantsAndStock,
  "0017-shipping-and-tax": shippingAndTax,
  "0018-departments": departments,
  "0019-new-user-fixes": newUserFixes,
  "0020-reviews": reviews,
  "0021-stock-alerts": stockAlerts,
  "0022-promotions": promotions,
  "0023-sales-totals": salesTotals,
  "0024-product-csv": productCsv,
  "0025-stock-alerts-by-variant": stockAlertsByVariant,
  "0026-listing-stock-and-options": listingStockAndOptions,
  "0027-listing-covering-index": listingCoveringIndex,
  "0028-refund-lines-and-order-statuses": refundLinesAndOrderStatuses,
  "0029-hold-claims-and-alert-confirmations": holdClaimsAndAlertConfirmations,
  "0030-two-step-sign-in": twoStepSignIn,
  "0031-true-ratings-and-variant-low-stock": trueRatingsAndVariantLowStock,
  "0032-shop-settings": shopSettings,
  "0033-staff-roles": staffRoles,
  "0036-basket-recovery": basketRecovery,
  "0037-balance-ledger": balanceLedger,
  "0038-gift-cards": giftCards,
  "0039-returns": returns,
  "0040-withdrawals": withdrawals,
  "0041-gift-cards-out-of-sales": giftCardsOutOfSales,
  "0042-shipping-moves-catalogue-version": shippingMovesCatalogueVersion,
  "0043-limited-stock-writes-only-changes": limitedStockWritesOnlyChanges,
};

export const migrationNames = Object.keys(migrations);

/** Brings the shop's schema up to date; instances starting at the same time apply each migration once. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  await migrateCurrentSchema(db, {
    provider: { getMigrations: async () => migrations },
    failure: "Database migration failed",
  });
}
