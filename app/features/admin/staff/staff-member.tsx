// One member of staff on the staff page: their role and areas, invitation and two-step state, and what an owner may
// do about them (reset their two-step, change their role, remove their access).

import { Form } from "react-router";
import { CONSOLE_AREAS, ROLE_LABELS, type ConsoleArea, type StaffRole } from "#shared/console-access";
import { ErrorSummary } from "#app/components/form/error-summary";
import { CONSOLE_SUMMARY_TITLE } from "#app/features/admin/console-field";
import { RoleFields } from "./role-fields";

/** A member as the loader words them. */
export interface StaffMemberView {
  email: string;
  role: StaffRole;
  areas: ConsoleArea[];
  isInvitationOpen: boolean;
  hasTwoStep: boolean;
  since: string;
  addedBy: string;
}

/** The member's section; `me` is the operator looking, who cannot reset their own two-step here. */
export function StaffMember({
  member,
  me,
  errors,
  isBusy,
}: {
  member: StaffMemberView;
  me: string;
  errors: Record<string, string> | undefined;
  isBusy: boolean;
}) {
  const prefix = `member-${member.email.replace(/[^a-z0-9]/g, "-")}`;
  return (
    <section className="console-section" aria-label={member.email}>
      <h2>
        {member.email}
        {member.email === me ? " (you)" : ""}
      </h2>
      <p>
        {ROLE_LABELS[member.role]}
        {member.role === "staff"
          ? `: ${member.areas.map((id) => CONSOLE_AREAS.find((area) => area.id === id)?.label).join(", ")}`
          : ""}
        {member.isInvitationOpen ? " · invitation sent, no password set yet" : ""}
        {` · two-step ${member.hasTwoStep ? "on" : "off"}`}
      </p>
      {member.hasTwoStep && member.email !== me ? (
        <Form method="post">
          <input type="hidden" name="email" value={member.email} />
          <button
            type="submit"
            name="intent"
            value="reset-two-step"
            className="console-link-button"
            disabled={isBusy}
            aria-label={`Reset two-step of ${member.email}`}
          >
            Reset two-step
          </button>
        </Form>
      ) : null}
      <p className="console-hint">
        Since {member.since}, added by {member.addedBy}
      </p>
      <ErrorSummary
        errors={errors}
        fieldIds={{ email: `${prefix}-role`, areas: `${prefix}-areas` }}
        title={CONSOLE_SUMMARY_TITLE}
      />
      {errors?.email ? (
        <p className="console-field__error" role="alert">
          {errors.email}
        </p>
      ) : null}
      <details className="console-method" open={errors !== undefined}>
        <summary>Change role</summary>
        <Form method="post" className="console-form" noValidate>
          <input type="hidden" name="email" value={member.email} />
          <RoleFields idPrefix={prefix} role={member.role} areas={member.areas} errors={errors} />
          <button type="submit" name="intent" value="change-role" className="console-button" disabled={isBusy}>
            Change role
          </button>
        </Form>
      </details>
      <Form method="post">
        <input type="hidden" name="email" value={member.email} />
        <button
          type="submit"
          name="intent"
          value="remove"
          className="console-button console-button--quiet"
          disabled={isBusy}
          aria-label={`Remove access for ${member.email}`}
        >
          Remove access
        </button>
      </Form>
    </section>
  );
}
