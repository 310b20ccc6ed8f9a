// Departments and their products: the tree two levels deep, breadcrumbs, the console's create, rename, move and remove
// (audited), and a CSV import's departments by path.

import slugify from "@sindresorhus/slugify";
import { sql, type Selectable, type Transaction } from "kysely";
import type { DB, Writer } from "#server/db/client";
import type { Database, DepartmentTable } from "#server/db/schema";
import { AppError } from "#shared/errors";
import type { Department, DepartmentBranch, DepartmentTrail } from "#shared/departments";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { inBatches } from "#server/db/in-batches";
import { isUuid } from "#shared/ids";

type DepartmentRow = Selectable<DepartmentTable>;

const departmentColumns = ["id", "parent_id", "name", "slug", "description", "position"] as const;

function toDepartment(row: Pick<DepartmentRow, (typeof departmentColumns)[number]>): Department {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    position: row.position,
    parentId: row.parent_id,
  };
}

/** The tree from rows: top-level departments in position order, each with its children in theirs. */
export function buildTree(departments: readonly Department[]): DepartmentBranch[] {
  const byPosition = (a: Department, b: Department) => a.position - b.position || a.name.localeCompare(b.name);
  return departments
    .filter((department) => department.parentId === null)
    .sort(byPosition)
    .map((top) => ({
      ...top,
      children: departments.filter((department) => department.parentId === top.id).sort(byPosition),
    }));
}

/** A department's address from its name ("Home & Kitchen" → "home-kitchen"). */
export function departmentSlug(name: string): string {
  return slugify(name, { decamelize: false, customReplacements: [["&", ""]] })
    .slice(0, 80)
    .replace(/-+$/, "");
}

/** How a department is named in a CSV: its name, or its parent's and its own ("Computers > Monitors"). */
export function departmentPath(
  department: Pick<Department, "name" | "parentId">,
  all: readonly Pick<Department, "id" | "name">[],
): string[] {
  const parent =
    department.parentId === null ? undefined : all.find((candidate) => candidate.id === department.parentId);
  return parent ? [parent.name, department.name] : [department.name];
}

/** One key per path whatever its case: "computers > monitors". */
export function departmentPathKey(path: readonly string[]): string {
  return path.map((name) => name.toLowerCase()).join(" > ");
}

export interface DepartmentInput {
  name: string;
  description?: string;
  parentId: string | null;
  position?: number;
}

/**
 * The departments: their tree, and every write to `departments` and `product_departments` (this module owns both).
 * Reads of the tree are kept per catalogue version (a trigger counts it up on every write to either table), so the
 * header's menu costs nothing on most pages.
 */
export function createDepartmentService(db: DB, catalogue: { currentVersion(): Promise<bigint>; noteWrite(): void }) {
  let cached: { version: bigint; read: Promise<Department[]> } | undefined;
  /** The tree built from the kept read, once: the header asks for it on every page. */
  let cachedTree: { all: Department[]; tree: readonly DepartmentBranch[] } | undefined;

  /** `trailOfProduct` from the ids of the product's departments, when the caller read them (with the product). */
  async function trailOf(departmentIds: readonly string[]): Promise<DepartmentTrail> {
    if (departmentIds.length === 0) return [];
    const all = await listAll();
    const mine = departmentIds
      .map((id) => all.find((department) => department.id === id))
      .filter((department) => department !== undefined);
    const order = (department: Department) => {
      const parent = all.find((candidate) => candidate.id === department.parentId);
      return [parent ? 0 : 1, parent?.position ?? department.position, department.position] as const;
    };
    mine.sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    });
    const chosen = mine[0];
    if (!chosen) return [];
    const parent = all.find((candidate) => candidate.id === chosen.parentId);
    return [...(parent ? [{ name: parent.name, slug: parent.slug }] : []), { name: chosen.name, slug: chosen.slug }];
  }

  async function listAll(): Promise<Department[]> {
    const version = await catalogue.currentVersion();
    if (cached?.version === version) return cached.read;
    const read: Promise<Department[]> = db
      .selectFrom("departments")
      .select(departmentColumns)
      .execute()
      .then((rows) => rows.map(toDepartment))
      .catch((error: unknown) => {
        // A failed read (the database is down) is not kept: the next request asks again. Whoever awaits it gets the error.
        if (cached?.read === read) cached = undefined;
        throw error;
      });
    cached = { version, read };
    return read;
  }

  async function writeAudited<T>(
    actor: Actor,
    work: (trx: Transaction<Database>) => Promise<{
      result: T;
      action: string;
      subject: string;
      before: Record<string, unknown> | null;
      after: Record<string, unknown> | null;
    }>,
  ): Promise<T> {
    const { result } = await db.transaction().execute(async (trx) => {
      const done = await work(trx);
      await recordAudit(trx, actor, done);
      return done;
    });
    cached = undefined;
    catalogue.noteWrite();
    return result;
  }

  /** Checks a parent for a department: it exists, is top-level, and is not the department itself. */
  async function checkParent(
    trx: Transaction<Database>,
    parentId: string | null,
    selfId: string | null,
  ): Promise<void> {
    if (parentId === null) return;
    if (parentId === selfId)
      throw new AppError("BAD_REQUEST", "A department cannot be inside itself.", { details: { field: "parentId" } });
    const parent = await trx
      .selectFrom("departments")
      .select(["parent_id"])
      .where("id", "=", parentId)
      .forUpdate()
      .executeTakeFirst();
    if (!parent)
      throw new AppError("BAD_REQUEST", "That parent department does not exist.", { details: { field: "parentId" } });
    if (parent.parent_id !== null) {
      throw new AppError(
        "BAD_REQUEST",
        "Departments go two levels deep: choose a top-level department as the parent.",
        { details: { field: "parentId" } },
      );
    }
  }

  /** A slug from the name that no other department holds (made unique with a number). */
  async function freeSlug(trx: Transaction<Database>, name: string, selfId: string | null): Promise<string> {
    const wanted = departmentSlug(name);
    if (wanted === "")
      throw new AppError("BAD_REQUEST", "A department's name needs at least one letter or digit.", {
        details: { field: "name" },
      });
    for (let suffix = 1; ; suffix++) {
      const slug = suffix === 1 ? wanted : `${wanted}-${suffix}`;
      let taken = trx.selectFrom("departments").select("id").where("slug", "=", slug);
      if (selfId) taken = taken.where("id", "<>", selfId);
      if (!(await taken.executeTakeFirst())) return slug;
    }
  }

  return {
    listAll,

    /** Top-level departments in order, each with its sub-departments. */
    async listTree(): Promise<readonly DepartmentBranch[]> {
      const all = await listAll();
      if (cachedTree?.all !== all) cachedTree = { all, tree: buildTree(all) };
      return cachedTree.tree;
    },

    /** A department by its address, with its parent and children; undefined for none. */
    async findBySlug(
      slug: string,
    ): Promise<{ department: Department; parent: Department | null; children: Department[] } | undefined> {
      const all = await listAll();
      const department = all.find((candidate) => candidate.slug === slug);
      if (!department) return undefined;
      return {
        department,
        parent: all.find((candidate) => candidate.id === department.parentId) ?? null,
        children: buildTree(all).find((branch) => branch.id === department.id)?.children ?? [],
      };
    },

    /**
     * The way up from a product to the home page: its deepest department first chosen by position (a product in
     * Computers > Monitors shows Computers > Monitors), or an empty trail for a product in none.
     */
    async trailOfProduct(productId: string): Promise<DepartmentTrail> {
      const rows = await db
        .selectFrom("product_departments")
        .select("department_id")
        .where("product_id", "=", productId)
        .execute();
      return trailOf(rows.map((row) => row.department_id));
    },

    trailOf,

    /** The ids of the departments a product is in. */
    async departmentIdsOfProduct(productId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("product_departments")
        .select("department_id")
        .where("product_id", "=", productId)
        .execute();
      return rows.map((row) => row.department_id);
    },

    /**
     * Puts a product in exactly these departments (inside the caller's transaction, so the product and its
     * departments commit together). Unknown ids are refused. Returns the ids before and after, for the audit log.
     */
    async setProductDepartments(
      trx: Writer,
      productId: string,
      departmentIds: readonly string[],
    ): Promise<{ before: string[]; after: string[] }> {
      const wanted = [...new Set(departmentIds)];
      if (wanted.some((id) => !isUuid(id)))
        throw new AppError("BAD_REQUEST", "Choose departments from the list.", { details: { field: "departmentIds" } });
      if (wanted.length > 0) {
        const known = await trx.selectFrom("departments").select("id").where("id", "in", wanted).execute();
        if (known.length !== wanted.length)
          throw new AppError("BAD_REQUEST", "Choose departments from the list.", {
            details: { field: "departmentIds" },
          });
      }
      const current = await trx
        .selectFrom("product_departments")
        .select("department_id")
        .where("product_id", "=", productId)
        .execute();
      const before = current.map((row) => row.department_id).sort();
      const removed = before.filter((id) => !wanted.includes(id));
      const added = wanted.filter((id) => !before.includes(id));
      if (removed.length > 0)
        await trx
          .deleteFrom("product_departments")
          .where("product_id", "=", productId)
          .where("department_id", "in", removed)
          .execute();
      if (added.length > 0) {
        await trx
          .insertInto("product_departments")
          .values(added.map((departmentId) => ({ department_id: departmentId, product_id: productId })))
          .onConflict((conflict) => conflict.doNothing())
          .execute();
      }
      cached = undefined;
      catalogue.noteWrite();
      return { before, after: [...wanted].sort() };
    },

    /**
     * The departments a CSV import names, each a path of one or two names ("Books", "Computers > Monitors"), found
     * by name in any case (a lone name: a top-level department before a sub-department of that name) and created at
     * the end of their siblings when missing, in the import's transaction. Answers each path's id by
     * departmentPathKey.
     */
    async findOrCreateByPaths(
      trx: Transaction<Database>,
      paths: readonly (readonly string[])[],
    ): Promise<Map<string, string>> {
      const rows = await trx
        .selectFrom("departments")
        .select(departmentColumns)
        .orderBy("position")
        .orderBy("name")
        .execute();
      const all = rows.map(toDepartment);
      const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
      const create = async (name: string, parentId: string | null): Promise<Department> => {
        const slug = await freeSlug(trx, name, null);
        const last = all
          .filter((department) => department.parentId === parentId)
          .reduce((highest, department) => Math.max(highest, department.position), 0);
        const row = await trx
          .insertInto("departments")
          .values({ name, slug, description: "", parent_id: parentId, position: last + 1 })
          .returning(departmentColumns)
          .executeTakeFirstOrThrow();
        all.push(toDepartment(row));
        return toDepartment(row);
      };
      const found = new Map<string, string>();
      for (const path of paths) {
        const key = departmentPathKey(path);
        if (found.has(key)) continue;
        const [first = "", second] = path;
        let department: Department;
        if (second === undefined) {
          department =
            all.find((candidate) => candidate.parentId === null && same(candidate.name, first)) ??
            all.find((candidate) => same(candidate.name, first)) ??
            (await create(first, null));
        } else {
          const parent =
            all.find((candidate) => candidate.parentId === null && same(candidate.name, first)) ??
            (await create(first, null));
          department =
            all.find((candidate) => candidate.parentId === parent.id && same(candidate.name, second)) ??
            (await create(second, parent.id));
        }
        found.set(key, department.id);
      }
      cached = undefined;
      catalogue.noteWrite();
      return found;
    },

    /** Puts each product in exactly its departments (a CSV import's, in its transaction; ids the import found or made). */
    async placeImportedProducts(
      trx: Transaction<Database>,
      placements: ReadonlyMap<string, readonly string[]>,
    ): Promise<void> {
      for (const batch of inBatches([...placements], 500)) {
        await trx
          .deleteFrom("product_departments")
          .where(
            "product_id",
            "in",
            batch.map(([productId]) => productId),
          )
          .execute();
        const rows = batch.flatMap(([productId, departmentIds]) =>
          [...new Set(departmentIds)].map((departmentId) => ({ product_id: productId, department_id: departmentId })),
        );
        for (const inserted of inBatches(rows, 1000))
          await trx.insertInto("product_departments").values(inserted).execute();
      }
      cached = undefined;
      catalogue.noteWrite();
    },

    /** How many products each department holds directly (the console's list). */
    async productCounts(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom("product_departments")
        .select(["department_id", (eb) => eb.fn.countAll<string>().as("count")])
        .groupBy("department_id")
        .execute();
      return new Map(rows.map((row) => [row.department_id, Number(row.count)]));
    },

    /** A new department, at the end of its siblings unless a position is given. */
    async createDepartment(actor: Actor, input: DepartmentInput): Promise<Department> {
      return writeAudited(actor, async (trx) => {
        await checkParent(trx, input.parentId, null);
        const slug = await freeSlug(trx, input.name, null);
        const last = await trx
          .selectFrom("departments")
          .select(sql<number>`coalesce(max(position), 0)`.as("position"))
          .where((eb) => (input.parentId === null ? eb("parent_id", "is", null) : eb("parent_id", "=", input.parentId)))
          .executeTakeFirstOrThrow();
        const row = await trx
          .insertInto("departments")
          .values({
            name: input.name,
            slug,
            description: input.description ?? "",
            parent_id: input.parentId,
            position: input.position ?? Number(last.position) + 1,
          })
          .returning(departmentColumns)
          .executeTakeFirstOrThrow();
        return {
          result: toDepartment(row),
          action: "department.create",
          subject: row.slug,
          before: null,
          after: { ...row },
        };
      });
    },

    /**
     * Renames, describes or moves a department (a new parent, a new position). A new name gives it a new address.
     * A department with sub-departments stays top-level (the tree is two levels deep).
     */
    async updateDepartment(actor: Actor, id: string, input: DepartmentInput): Promise<Department> {
      if (!isUuid(id)) throw new AppError("NOT_FOUND", "There is no such department.");
      return writeAudited(actor, async (trx) => {
        const current = await trx
          .selectFrom("departments")
          .select(departmentColumns)
          .where("id", "=", id)
          .forUpdate()
          .executeTakeFirst();
        if (!current) throw new AppError("NOT_FOUND", "There is no such department.");
        await checkParent(trx, input.parentId, id);
        if (input.parentId !== null) {
          const child = await trx.selectFrom("departments").select("id").where("parent_id", "=", id).executeTakeFirst();
          if (child)
            throw new AppError(
              "BAD_REQUEST",
              "This department has sub-departments, so it stays top-level: move them first.",
              { details: { field: "parentId" } },
            );
        }
        const slug = input.name === current.name ? current.slug : await freeSlug(trx, input.name, id);
        const after = await trx
          .updateTable("departments")
          .set({
            name: input.name,
            slug,
            description: input.description ?? current.description,
            parent_id: input.parentId,
            position: input.position ?? current.position,
            updated_at: sql`now()`,
          })
          .where("id", "=", id)
          .returning(departmentColumns)
          .executeTakeFirstOrThrow();
        return {
          result: toDepartment(after),
          action: "department.update",
          subject: after.slug,
          before: { ...current },
          after: { ...after },
        };
      });
    },

    /** Removes a department that holds no products and no sub-departments; otherwise says what to move first. */
    async removeDepartment(actor: Actor, id: string): Promise<void> {
      if (!isUuid(id)) throw new AppError("NOT_FOUND", "There is no such department.");
      await writeAudited(actor, async (trx) => {
        const current = await trx
          .selectFrom("departments")
          .select(departmentColumns)
          .where("id", "=", id)
          .forUpdate()
          .executeTakeFirst();
        if (!current) throw new AppError("NOT_FOUND", "There is no such department.");
        const products = await trx
          .selectFrom("product_departments")
          .select((eb) => eb.fn.countAll<string>().as("count"))
          .where("department_id", "=", id)
          .executeTakeFirstOrThrow();
        if (Number(products.count) > 0) {
          throw new AppError(
            "DEPARTMENT_NOT_EMPTY",
            `${current.name} still has ${products.count} ${Number(products.count) === 1 ? "product" : "products"}: move them to another department first.`,
          );
        }
        const child = await trx.selectFrom("departments").select("id").where("parent_id", "=", id).executeTakeFirst();
        if (child)
          throw new AppError("DEPARTMENT_NOT_EMPTY", `${current.name} has sub-departments: move or remove them first.`);
        await trx.deleteFrom("departments").where("id", "=", id).execute();
        return {
          result: undefined,
          action: "department.remove",
          subject: current.slug,
          before: { ...current },
          after: null,
        };
      });
    },
  };
}

export type DepartmentService = ReturnType<typeof createDepartmentService>;
