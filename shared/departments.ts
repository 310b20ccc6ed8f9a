// Departments as pages show them (menu, /departments, breadcrumbs, console) and the lengths of their names and
// descriptions.

/** A department as pages show it: the header's menu, /departments, breadcrumbs and the console. */
export interface Department {
  id: string;
  name: string;
  slug: string;
  description: string;
  position: number;
  parentId: string | null;
}

/** A top-level department with its sub-departments, both in position order. */
export interface DepartmentBranch extends Department {
  children: Department[];
}

/** The way up from a product: Home > Computers > Monitors (top-level first). */
export type DepartmentTrail = Pick<Department, "name" | "slug">[];

/** A department's name as the console takes it, trimmed. */
export const DEPARTMENT_NAME_MAX_LENGTH = 80;
export const DEPARTMENT_DESCRIPTION_MAX_LENGTH = 1_000;

export function departmentPath(slug: string): string {
  return `/departments/${slug}`;
}
