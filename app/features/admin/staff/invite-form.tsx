// "Invite staff": an e-mail address and the role (with its areas) the invitation gives; the invitee sets their own
// password from the e-mailed link.

import { Form } from "react-router";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { RoleFields } from "./role-fields";

/** The form, drawn again with the address typed when refused; `formKey` empties it after an invitation is sent. */
export function InviteForm({
  errors: inviteErrors,
  email,
  formKey,
  isBusy,
}: {
  errors: Record<string, string> | undefined;
  email: string;
  formKey: string;
  isBusy: boolean;
}) {
  return (
    <>
      <h2>Invite staff</h2>
      <ErrorSummary
        errors={inviteErrors}
        fieldIds={{ ...fieldIdsOf(["email"]), role: "invite-role", areas: "invite-areas" }}
        title={CONSOLE_SUMMARY_TITLE}
      />
      <Form method="post" className="console-form" noValidate key={formKey}>
        <div className="console-field">
          <label htmlFor="field-email">E-mail</label>
          <input
            id="field-email"
            name="email"
            type="email"
            autoComplete="off"
            maxLength={254}
            defaultValue={email}
            {...invalidFieldProps("field-email", inviteErrors?.email)}
          />
          <FieldError fieldId="field-email" message={inviteErrors?.email} />
        </div>
        <RoleFields idPrefix="invite" role="staff" areas={[]} errors={inviteErrors} />
        <button type="submit" name="intent" value="invite" className="console-button" disabled={isBusy}>
          Invite staff
        </button>
      </Form>
    </>
  );
}
