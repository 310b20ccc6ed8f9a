// /admin/staff: the shop's staff, their roles and two-step, the two-step policy, and invitations.

import { data, useNavigation } from "react-router";
import type { Route } from "./+types/staff";
import { staffRemovalSchema, staffRoleSchema } from "#shared/admin-schemas";
import { ROLE_LABELS } from "#shared/console-access";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { PageHeader } from "#app/features/admin/console-ui";
import { TwoStepPolicyForm } from "#app/features/admin/staff/two-step-policy-form";
import { StaffMember } from "#app/features/admin/staff/staff-member";
import { InviteForm } from "#app/features/admin/staff/invite-form";
import { twoStepConsoleSchema } from "#shared/two-step";

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
      {loaderData.staff.map((member) => (
        <StaffMember
          key={member.email}
          member={member}
          me={loaderData.me}
          errors={errorsOf(member.email)}
          isBusy={isBusy}
        />
      ))}
      {actionData?.form === "two-step" && actionData.errors?.email ? (
        <p className="field-error" role="alert">
          {actionData.errors.email}
        </p>
      ) : null}
      <TwoStepPolicyForm policy={loaderData.twoStepPolicy} isBusy={isBusy} />
      <InviteForm
        errors={inviteErrors}
        email={actionData?.form === "invite" ? actionData.email : ""}
        formKey={actionData?.done ?? "invite"}
        isBusy={isBusy}
      />
    </main>
  );
}
