import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/operators";
import { operatorEmailSchema } from "#shared/admin-schemas";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { formatConsoleTime, requireOperator } from "./require-operator";
import { PageHeader } from "#app/features/admin/console-ui";
import { TwoStepPolicyForm } from "#app/features/admin/two-step-policy-form";
import { requestContext } from "#app/context";
import { twoStepConsoleSchema } from "#shared/two-step";

export async function loader({ context }: Route.LoaderArgs) {
  const { services, actor } = requireOperator(context);
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const operators = await services.operators.listOperators();
  const [withTwoStep, policy] = await Promise.all([
    services.twoStep.listAccountsWithTwoStep(operators.map((operator) => operator.userId)),
    services.twoStep.readPolicy(),
  ]);
  return {
    me: actor.email,
    twoStepPolicy: policy,
    operators: operators.map((operator) => ({
      email: operator.email,
      grantedAt: formatConsoleTime(operator.grantedAt, timeZone),
      grantedBy: operator.grantedByEmail ?? "start-up (OPERATOR_EMAIL)",
      hasTwoStep: withTwoStep.has(operator.userId),
    })),
  };
}

/** Grant the role to an account by e-mail, or revoke it ("never the last one"); and the two-step forms. */
export async function action({ context, request }: Route.ActionArgs) {
  const { services, actor } = requireOperator(context);
  const fields = await readFormOrRefuse(request);
  if (fields.intent === "reset-two-step" || fields.intent === "two-step-policy") return twoStepAction(context, fields);
  const email = (fields.email ?? "").slice(0, 254);
  const parsed = operatorEmailSchema.safeParse(fields);
  if (!parsed.success)
    return data(
      { errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), email, done: null },
      { status: 400 },
    );
  try {
    if (parsed.data.intent === "grant") await services.operators.grantRole(actor, parsed.data.email);
    else await services.operators.revokeRole(actor, parsed.data.email);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return data({ errors: { email: error.message }, email, done: null }, { status: error.status });
  }
  const done =
    parsed.data.intent === "grant"
      ? `${parsed.data.email} is now an operator.`
      : `${parsed.data.email} is no longer an operator.`;
  return { errors: undefined, email: "", done };
}

/**
 * "Reset two-step" of another operator (a lost phone; audit-logged) and "Require two-step verification for staff".
 * Who may is decided in one place, mayManageTwoStep.
 */
async function twoStepAction(context: Route.ActionArgs["context"], fields: Record<string, string>) {
  const { services, actor } = requireOperator(context);
  const { shopper } = context.get(requestContext);
  const refuse = (message: string, status: number) =>
    data({ errors: undefined, email: "", done: null, twoStepError: message }, { status });
  if (!services.twoStep.mayManageTwoStep(shopper.user)) return refuse("Only the shop's owner may do that.", 403);
  const parsed = twoStepConsoleSchema.safeParse(fields);
  if (!parsed.success) return refuse(parsed.error.issues[0]?.message ?? "That request was not understood.", 400);
  if (parsed.data.intent === "two-step-policy") {
    const isRequired = parsed.data.required === "on";
    await services.twoStep.setRequiredForStaff(actor, isRequired);
    return {
      errors: undefined,
      email: "",
      done: isRequired
        ? "Two-step verification is now required for staff."
        : "Two-step verification is no longer required for staff.",
    };
  }
  if (parsed.data.email === actor.email)
    return refuse("Your own two-step verification cannot be reset here: ask another operator.", 400);
  try {
    await services.twoStep.resetForOperator(actor, parsed.data.email);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return refuse(error.message, error.status);
  }
  return {
    errors: undefined,
    email: "",
    done: `Two-step verification of ${parsed.data.email} is reset: they sign in with their password and set it up again.`,
  };
}

export default function Operators({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const isBusy = navigation.state === "submitting";
  const errors = actionData?.errors;
  const twoStepError = actionData && "twoStepError" in actionData ? actionData.twoStepError : null;
  return (
    <main id="main" className="console-main">
      <title>Operators | Console</title>
      <PageHeader title="Operators" />
      <p className="console-notice" role="status">
        {actionData?.done ?? ""}
      </p>
      <table className="console-table" tabIndex={0}>
        <caption className="visually-hidden">Accounts with the operator role</caption>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Since</th>
            <th scope="col">Granted by</th>
            <th scope="col">Two-step</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {loaderData.operators.map((operator) => (
            <tr key={operator.email}>
              <td>
                {operator.email}
                {operator.email === loaderData.me ? " (you)" : ""}
              </td>
              <td>{operator.grantedAt}</td>
              <td>{operator.grantedBy}</td>
              <td>
                {operator.hasTwoStep ? "On" : "Off"}
                {operator.hasTwoStep && operator.email !== loaderData.me ? (
                  <Form method="post">
                    <input type="hidden" name="email" value={operator.email} />
                    <button
                      type="submit"
                      name="intent"
                      value="reset-two-step"
                      className="console-link-button"
                      disabled={isBusy}
                      aria-label={`Reset two-step of ${operator.email}`}
                    >
                      Reset two-step
                    </button>
                  </Form>
                ) : null}
              </td>
              <td>
                <Form method="post">
                  <input type="hidden" name="email" value={operator.email} />
                  <button
                    type="submit"
                    name="intent"
                    value="revoke"
                    className="console-link-button"
                    disabled={isBusy}
                    aria-label={`Revoke ${operator.email}`}
                  >
                    Revoke
                  </button>
                </Form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {twoStepError ? (
        <p className="field-error" role="alert">
          {twoStepError}
        </p>
      ) : null}
      <TwoStepPolicyForm policy={loaderData.twoStepPolicy} isBusy={isBusy} />
      <h2>Grant the role</h2>
      <ErrorSummary errors={errors} fieldIds={fieldIdsOf(["email"])} title={CONSOLE_SUMMARY_TITLE} />
      <Form method="post" className="console-form console-form--inline" noValidate>
        <div className="console-field">
          <label htmlFor="field-email">E-mail of an existing account</label>
          <input
            id="field-email"
            name="email"
            type="email"
            autoComplete="off"
            maxLength={254}
            defaultValue={actionData?.email}
            key={actionData?.done ?? "form"}
            {...invalidFieldProps("field-email", errors?.email)}
          />
          <FieldError fieldId="field-email" message={errors?.email} />
        </div>
        <button type="submit" name="intent" value="grant" className="console-button" disabled={isBusy}>
          Grant
        </button>
      </Form>
    </main>
  );
}
