// The role and areas of a member of staff, as one set of fields: the invitation's and each member's "Change role"
// draw the same ones, so both say the roles the same way.

import { CONSOLE_AREAS, ROLE_LABELS, type ConsoleArea, type StaffRole } from "#shared/console-access";
import { FieldError } from "#app/components/form/field-error";

const ROLES: readonly StaffRole[] = ["owner", "manager", "staff"];

/** The role select and, for Staff, the areas: the same fields in the invitation and in each member's "Change role". */
export function RoleFields({
  idPrefix,
  role,
  areas,
  errors,
}: {
  idPrefix: string;
  role: StaffRole;
  areas: readonly ConsoleArea[];
  errors: Record<string, string> | undefined;
}) {
  return (
    <>
      <div className="console-field">
        <label htmlFor={`${idPrefix}-role`}>Role</label>
        <select id={`${idPrefix}-role`} name="role" defaultValue={role} aria-describedby={`${idPrefix}-role-hint`}>
          {ROLES.map((option) => (
            <option key={option} value={option}>
              {ROLE_LABELS[option]}
            </option>
          ))}
        </select>
        <p id={`${idPrefix}-role-hint`} className="console-hint">
          Owner: everything, including staff and settings. Manager: everything but staff and settings. Staff: the areas
          ticked below.
        </p>
      </div>
      <fieldset
        className="console-field console-field--check"
        id={`${idPrefix}-areas`}
        tabIndex={-1}
        aria-describedby={errors?.areas ? `${idPrefix}-areas-error` : undefined}
      >
        <legend>Areas (for Staff)</legend>
        {CONSOLE_AREAS.map((area) => (
          <label key={area.id}>
            <input type="checkbox" name={`area-${area.id}`} defaultChecked={areas.includes(area.id)} /> {area.label}
            {area.detail ? <span className="console-hint"> ({area.detail})</span> : null}
          </label>
        ))}
        <FieldError fieldId={`${idPrefix}-areas`} message={errors?.areas} />
      </fieldset>
    </>
  );
}
