import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/staff";
import { staffRemovalSchema, staffRoleSchema } from "#shared/admin-schemas";
import { CONSOLE_AREAS, ROLE_LABELS, type ConsoleArea, type StaffRole } from "#shared/console-access";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { PageHeader } from "#app/features/admin/console-ui";
import { TwoStepPolicyForm } from "#app/features/admin/staff/two-step-policy-form";
import { twoStepConsoleSchema } from "#shared/two-step";

const ROLES: readonly StaffRole[] = ["owner", "manager", "staff"];

export async function loader({ context }: Route.LoaderArgs) {
  const { services, actor } = requireConsole(context, "routes/admin/staff");
  // Console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const staff = await services.operators.listStaff();
  const [withTwoStep, twoStepPolicy] = await Promise.all([
    services.twoStep.listAccountsWithTwoStep(staff.map((member) => member.userId)),
    services.twoStep.readPolicy(),
  ]);
  return {
    me: actor.email,
    twoStepPolicy,
    staff: staff.map((member) => ({
      email: member.email,
      role: member.role,
      areas: member.areas,
      hasTwoStep: withTwoStep.has(member.userId),
      since: formatConsoleTime(member.grantedAt, timeZone),
      addedBy: member.grantedByEmail ?? "start-up (OPERATOR_EMAIL)",
      isInvitationOpen: member.isInvitationOpen,
    })),
  };
}

/**
 * "Invite staff", "Change role", "Remove access", "Reset two-step" (a lost phone) and "Require two-step verification
 * for staff": one service call each, audited by the service.
 */
export async function action({ context, request }: Route.ActionArgs) {
  const { services, actor } = requireConsole(context, "routes/admin/staff", null);
  const fields = await readFormOrRefuse(request);
  if (fields.intent === "reset-two-step" || fields.intent === "two-step-policy")
    return twoStepAction(services, actor, fields);
  const typed = (fields.email ?? "").slice(0, 254);
  const form = fields.intent === "change-role" || fields.intent === "remove" ? `${fields.email ?? ""}` : "invite";
  const parsed = fields.intent === "remove" ? staffRemovalSchema.safeParse(fields) : staffRoleSchema.safeParse(fields);
  if (!parsed.success)
    return data(
      {
        form,
        errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }),
        email: typed,
        done: null,
      },
      { status: 400 },
    );
  const change = parsed.data;
  try {
    if (change.intent === "remove") await services.operators.removeAccess(actor, change.email);
    else if (change.intent === "invite") await services.operators.invite(actor, change);
    else await services.operators.changeRole(actor, change);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return data({ form, errors: { email: error.message }, email: typed, done: null }, { status: error.status });
  }
  const done =
    change.intent === "remove"
      ? `${change.email} no longer has access, and was signed out everywhere.`
      : change.intent === "invite"
        ? `An invitation was sent to ${change.email}.`
        : `${change.email} is now ${ROLE_LABELS[change.role]}.`;
  return { form: null, errors: undefined, email: "", done };
}

async function twoStepAction(
  services: ReturnType<typeof requireConsole>["services"],
  actor: ReturnType<typeof requireConsole>["actor"],
  fields: Record<string, string>,
) {
  const refuse = (message: string, status: number) =>
    data({ form: "two-step", errors: { email: message }, email: "", done: null }, { status });
  const parsed = twoStepConsoleSchema.safeParse(fields);
  if (!parsed.success) return refuse(parsed.error.issues[0]?.message ?? "That request was not understood.", 400);
  if (parsed.data.intent === "two-step-policy") {
    const isRequired = parsed.data.required === "on";
    await services.twoStep.setRequiredForStaff(actor, isRequired);
    return {
      form: null,
      errors: undefined,
      email: "",
      done: isRequired
        ? "Two-step verification is now required for staff."
        : "Two-step verification is no longer required for staff.",
    };
  }
  if (parsed.data.email === actor.email)
    return refuse("Your own two-step verification cannot be reset here: ask another owner.", 400);
  try {
    await services.twoStep.resetForOperator(actor, parsed.data.email);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return refuse(error.message, error.status);
  }
  return {
    form: null,
    errors: undefined,
    email: "",
    done: `Two-step verification of ${parsed.data.email} is reset: they sign in with their password and set it up again.`,
  };
}

/** The role select and, for Staff, the areas: the same fields in the invitation and in each member's "Change role". */
function RoleFields({
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

export default function Staff({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const isBusy = navigation.state === "submitting";
  const errorsOf = (form: string) => (actionData?.form === form ? actionData.errors : undefined);
  const inviteErrors = errorsOf("invite");
  return (
    <main id="main" className="console-main">
      <title>Staff | Console</title>
      <PageHeader title="Staff" />
      <p className="console-notice" role="status">
        {actionData?.done ?? ""}
      </p>
      {loaderData.staff.map((member) => {
        const errors = errorsOf(member.email);
        const prefix = `member-${member.email.replace(/[^a-z0-9]/g, "-")}`;
        return (
          <section key={member.email} className="console-section" aria-label={member.email}>
            <h2>
              {member.email}
              {member.email === loaderData.me ? " (you)" : ""}
            </h2>
            <p>
              {ROLE_LABELS[member.role]}
              {member.role === "staff"
                ? `: ${member.areas.map((id) => CONSOLE_AREAS.find((area) => area.id === id)?.label).join(", ")}`
                : ""}
              {member.isInvitationOpen ? " · invitation sent, no password set yet" : ""}
              {` · two-step ${member.hasTwoStep ? "on" : "off"}`}
            </p>
            {member.hasTwoStep && member.email !== loaderData.me ? (
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
      })}
      {actionData?.form === "two-step" && actionData.errors?.email ? (
        <p className="field-error" role="alert">
          {actionData.errors.email}
        </p>
      ) : null}
      <TwoStepPolicyForm policy={loaderData.twoStepPolicy} isBusy={isBusy} />
      <h2>Invite staff</h2>
      <ErrorSummary
        errors={inviteErrors}
        fieldIds={{ ...fieldIdsOf(["email"]), role: "invite-role", areas: "invite-areas" }}
        title={CONSOLE_SUMMARY_TITLE}
      />
      <Form method="post" className="console-form" noValidate key={actionData?.done ?? "invite"}>
        <div className="console-field">
          <label htmlFor="field-email">E-mail</label>
          <input
            id="field-email"
            name="email"
            type="email"
            autoComplete="off"
            maxLength={254}
            defaultValue={actionData?.form === "invite" ? actionData.email : ""}
            {...invalidFieldProps("field-email", inviteErrors?.email)}
          />
          <FieldError fieldId="field-email" message={inviteErrors?.email} />
        </div>
        <RoleFields idPrefix="invite" role="staff" areas={[]} errors={inviteErrors} />
        <button type="submit" name="intent" value="invite" className="console-button" disabled={isBusy}>
          Invite staff
        </button>
      </Form>
    </main>
  );
}
