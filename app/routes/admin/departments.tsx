// /admin/departments: every department's form, and a new one's.

import { data, useNavigation } from "react-router";
import type { Route } from "./+types/departments";
import { adminDepartmentSchema } from "#shared/admin-schemas";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { requireConsole } from "./require-operator";
import { DepartmentForm } from "#app/features/admin/departments/department-form";

export async function loader({ context }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/departments");
  const [tree, counts] = await Promise.all([services.departments.listTree(), services.departments.productCounts()]);
  return { tree, counts: Object.fromEntries(counts) };
}

/** Create, change (rename, describe, move: parent and position) or remove a department; each leaves an audit entry. */
export async function action({ context, request }: Route.ActionArgs) {
  const { services, actor } = requireConsole(context, "routes/admin/departments", null);
  const fields = await readFormOrRefuse(request);
  const formId = fields.id ?? "new";
  const parsed = adminDepartmentSchema.safeParse(fields);
  if (!parsed.success)
    return data(
      { formId, errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), done: null },
      { status: 400 },
    );
  const { intent, id, name, description, parentId, position } = parsed.data;
  try {
    if (intent === "remove") {
      await services.departments.removeDepartment(actor, id ?? "");
      return { formId, errors: undefined, done: "Department removed." };
    }
    if (!name) return data({ formId, errors: { name: "Enter a name." }, done: null }, { status: 400 });
    const input = { name, description, parentId, position };
    const saved =
      intent === "create"
        ? await services.departments.createDepartment(actor, input)
        : await services.departments.updateDepartment(actor, id ?? "", input);
    return { formId, errors: undefined, done: `${saved.name} saved.` };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return data({ formId, errors: { [field]: error.message }, done: null }, { status: error.status });
  }
}

export default function Departments({ loaderData, actionData }: Route.ComponentProps) {
  const { tree, counts } = loaderData;
  const navigation = useNavigation();
  const isBusy = navigation.state === "submitting";
  const errorsFor = (formId: string) => (actionData?.formId === formId ? actionData.errors : undefined);
  const topLevel = tree.map((department) => ({ id: department.id, name: department.name }));
  return (
    <main id="main" className="console-main">
      <title>Departments | Console</title>
      <h1>Departments</h1>
      <p className="console-notice" role="status">
        {actionData?.done ?? ""}
      </p>
      {tree
        .flatMap((top) => [top, ...top.children])
        .map((department) => (
          <DepartmentForm
            key={`${department.id}-${department.name}-${department.parentId}-${department.position}`}
            department={department}
            productCount={counts[department.id] ?? 0}
            parents={topLevel.filter((parent) => parent.id !== department.id)}
            errors={errorsFor(department.id)}
            isBusy={isBusy}
          />
        ))}
      <h2>New department</h2>
      <DepartmentForm key={actionData?.done ?? "new"} parents={topLevel} errors={errorsFor("new")} isBusy={isBusy} />
    </main>
  );
}
