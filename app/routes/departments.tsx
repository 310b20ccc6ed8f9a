// /departments: every department, what the header's "All" opens without JavaScript.

import { Link } from "react-router";
import type { Route } from "./+types/departments";
import { requestContext } from "#app/context";
import { departmentPath } from "#shared/listing";
import { useShopName } from "#app/features/shell/use-shop-name";

/** Every department, top-level ones with their sub-departments: what the header's "All" opens without JavaScript. */
export async function loader({ context }: Route.LoaderArgs) {
  const { services, publicOrigin } = context.get(requestContext);
  return { departments: await services.departments.listTree(), origin: publicOrigin };
}

export default function DepartmentsPage({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  const { departments, origin } = loaderData;
  return (
    <main id="main" className="departments-page">
      <title>{`All departments | ${shopName}`}</title>
      <meta
        name="description"
        content={`Shop by department at ${shopName}: ${departments.map((department) => department.name).join(", ")}.`}
      />
      <link rel="canonical" href={new URL("/departments", origin).href} />
      <h1>All departments</h1>
      <ul className="departments-page__list">
        {departments.map((department) => (
          <li key={department.id}>
            <h2>
              <Link to={departmentPath(department.slug)}>{department.name}</Link>
            </h2>
            {department.description ? <p>{department.description}</p> : null}
            {department.children.length > 0 ? (
              <ul aria-label={`${department.name} departments`}>
                {department.children.map((child) => (
                  <li key={child.id}>
                    <Link to={departmentPath(child.slug)}>{child.name}</Link>
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </main>
  );
}
