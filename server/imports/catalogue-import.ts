import type { Actor } from "../admin/audit-log";
import { recordAudit } from "../admin/audit-log";
import type { PictureStore } from "../admin/picture-store";
import type { CatalogueService, ProductValues } from "../catalogue/catalogue-service";
import type { DB } from "../db/client";
import type { DepartmentService } from "../departments/department-service";
import { AppError } from "../../shared/errors";

/** One product as the demo catalogue brings it: keyed by its own id, with its picture's bytes. */
export interface ImportedProduct {
  /** Stable across imports: importing the same id again updates that product. */
  id: string;
  title: string;
  description: string;
  priceCents: number;
  rating: 1 | 2 | 3 | 4 | 5;
  /** Departments by slug; each must exist. */
  departmentSlugs: readonly string[];
  /** JPEG, PNG or WebP bytes, re-encoded and stored as the console's pictures are. */
  picture: Uint8Array;
  /** Imported products are never featured unless asked. */
  featuredPosition?: number | null;
}

export interface ImportOutcome {
  created: number;
  updated: number;
}

/**
 * The demo catalogue's way into the catalogue: products by their own ids, with their pictures' bytes. (The console's
 * CSV import matches products by handle and SKU and writes a whole file in one transaction: product-csv-import.ts.)
 * Each product is written with its departments and its audit entry in one transaction (the catalogue's own write,
 * its hook), so a product never exists without them; importing the same rows again changes nothing but what changed.
 */
export function createCatalogueImport(db: DB, catalogue: CatalogueService, pictures: PictureStore, departments: DepartmentService) {
  return {
    async importProducts(actor: Actor, products: readonly ImportedProduct[]): Promise<ImportOutcome> {
      const all = await departments.listAll();
      const outcome: ImportOutcome = { created: 0, updated: 0 };
      for (const product of products) {
        const departmentIds = product.departmentSlugs.map((slug) => {
          const found = all.find((department) => department.slug === slug);
          if (!found) throw new AppError("BAD_REQUEST", `${product.id}: there is no department "${slug}".`);
          return found.id;
        });
        const image = await pictures.storePicture(product.picture);
        const hook = (action: string) => async (trx: Parameters<NonNullable<Parameters<CatalogueService["updateProduct"]>[2]>>[0], before: ProductValues | null, after: ProductValues) => {
          const placed = await departments.setProductDepartments(trx, after.id, departmentIds);
          await recordAudit(trx, actor, { action, subject: after.id, before: before && { ...before, departments: placed.before }, after: { ...after, departments: placed.after } });
        };
        const values = {
          title: product.title,
          description: product.description,
          priceCents: product.priceCents,
          rating: product.rating,
          status: "active" as const,
          featuredPosition: product.featuredPosition ?? null,
          image,
        };
        const existing = await db.selectFrom("products").select("id").where("id", "=", product.id).executeTakeFirst();
        if (existing) {
          await catalogue.updateProduct(product.id, values, hook("product.import"));
          outcome.updated += 1;
        } else {
          await catalogue.createProduct({ ...values, id: product.id }, hook("product.import"));
          outcome.created += 1;
        }
      }
      return outcome;
    },

    /** Takes imported products away again, by id (each with an audit entry); unknown ids are skipped. */
    async removeProducts(actor: Actor, ids: readonly string[]): Promise<number> {
      const present = ids.length === 0 ? [] : await db.selectFrom("products").select(["id", "title"]).where("id", "in", [...ids]).execute();
      const removed = await catalogue.deleteProducts(present.map((row) => row.id));
      for (const row of present) await recordAudit(db, actor, { action: "product.remove", subject: row.id, before: { title: row.title }, after: null });
      return removed;
    },
  };
}

export type CatalogueImport = ReturnType<typeof createCatalogueImport>;
