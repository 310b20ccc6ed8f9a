// The departments page's one form, drawn per department and once empty for a new one: name, parent, position and
// description, with Save and Remove (refused while products are in it); ids carry the department's id.

import { Form, Link } from "react-router";
import { departmentPath } from "#shared/listing";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";

/** A department's form (its legend names its address and how many products are in it), or a new one's. */
export function DepartmentForm({
  department,
  productCount = 0,
  parents,
  errors,
  isBusy,
}: {
  department?: {
    id: string;
    name: string;
    slug: string;
    description: string;
    parentId: string | null;
    position: number;
  };
  productCount?: number;
  parents: { id: string; name: string }[];
  errors: Record<string, string> | undefined;
  isBusy: boolean;
}) {
  const key = department?.id ?? "new";
  const fieldId = (name: string) => `${name}-${key}`;
  const aria = (name: string) => invalidFieldProps(fieldId(name), errors?.[name]);
  const legend = department
    ? `${department.parentId ? "Sub-department" : "Department"} ${department.name}`
    : "New department";
  return (
    <Form method="post" className="console-form console-department" noValidate>
      <fieldset>
        <legend>
          {department ? (
            <>
              {legend} (<Link to={departmentPath(department.slug)}>{departmentPath(department.slug)}</Link>,{" "}
              {productCount} {productCount === 1 ? "product" : "products"})
            </>
          ) : (
            legend
          )}
        </legend>
        {department ? <input type="hidden" name="id" value={department.id} /> : null}
        <div className="console-row">
          <div className="console-field">
            <label htmlFor={fieldId("name")}>Name</label>
            <input
              id={fieldId("name")}
              name="name"
              defaultValue={department?.name}
              maxLength={80}
              required
              {...aria("name")}
            />
            <FieldError fieldId={fieldId("name")} message={errors?.name} />
          </div>
          <div className="console-field">
            <label htmlFor={fieldId("parentId")}>Parent</label>
            <select
              id={fieldId("parentId")}
              name="parentId"
              defaultValue={department?.parentId ?? ""}
              {...aria("parentId")}
            >
              <option value="">None (top-level)</option>
              {parents.map((parent) => (
                <option key={parent.id} value={parent.id}>
                  {parent.name}
                </option>
              ))}
            </select>
            <FieldError fieldId={fieldId("parentId")} message={errors?.parentId} />
          </div>
          <div className="console-field">
            <label htmlFor={fieldId("position")}>Position</label>
            <input
              id={fieldId("position")}
              name="position"
              inputMode="numeric"
              defaultValue={department ? String(department.position) : ""}
              maxLength={4}
              {...aria("position")}
            />
            <FieldError fieldId={fieldId("position")} message={errors?.position} />
          </div>
        </div>
        <div className="console-field">
          <label htmlFor={fieldId("description")}>Description</label>
          <textarea
            id={fieldId("description")}
            name="description"
            defaultValue={department?.description}
            rows={2}
            maxLength={1_000}
            {...aria("description")}
          />
          <FieldError fieldId={fieldId("description")} message={errors?.description} />
        </div>
        {errors?.form ? <p className="console-field__error">{errors.form}</p> : null}
        <div className="console-row">
          <button
            type="submit"
            name="intent"
            value={department ? "update" : "create"}
            className="console-button console-button--primary"
            disabled={isBusy}
          >
            {department ? "Save" : "Create"}
          </button>
          {department ? (
            <button type="submit" name="intent" value="remove" className="console-button" disabled={isBusy}>
              Remove
            </button>
          ) : null}
        </div>
      </fieldset>
    </Form>
  );
}
