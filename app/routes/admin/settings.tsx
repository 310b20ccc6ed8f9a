// /admin/settings: the shop's own settings form and its save.

import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/settings";
import { ErrorSummary } from "#app/components/form/error-summary";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { LogoField, SettingsField } from "#app/features/admin/settings/settings-fields";
import { AppError } from "#shared/errors";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { readFormWithFileOrRefuse } from "#app/form-request";
import { formatCents } from "#shared/money";
import {
  LEGAL_PAGE_TITLES,
  MAX_ADDRESS_LENGTH,
  MAX_FROM_NAME_LENGTH,
  MAX_LEGAL_TEXT_LENGTH,
  MAX_SHOP_NAME_LENGTH,
} from "#shared/shop-settings";
import { shopSettingsFormSchema } from "#shared/shop-settings-schemas";
import { requireConsole } from "./require-operator";

/** The form's fields, in the order of the page, with their labels (the error summary's too). */
const LABELS = {
  shopName: "Shop name",
  logo: "Logo",
  supportEmail: "Support e-mail",
  emailFromName: "E-mail sender name",
  postalAddress: "Postal address",
  returnAddress: "Return address",
  returnWindowDays: "Return window (days)",
  returnFee: "Return fee ($)",
  timeZone: "Time zone",
  conditionsText: LEGAL_PAGE_TITLES.conditions,
  privacyText: LEGAL_PAGE_TITLES.privacy,
  returnsText: LEGAL_PAGE_TITLES.returns,
} as const;

type FieldName = Exclude<keyof typeof LABELS, "logo">;
type FormValues = Record<FieldName, string>;

export async function loader({ context }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/settings");
  const settings = await services.settings.current();
  const values: FormValues = {
    shopName: settings.saved.name ?? "",
    supportEmail: settings.supportEmail ?? "",
    emailFromName: settings.saved.emailFromName ?? "",
    postalAddress: settings.postalAddress ?? "",
    returnAddress: settings.returnAddress ?? "",
    returnWindowDays: String(settings.returnWindowDays),
    returnFee: formatCents(settings.returnFeeCents).replace("$", ""),
    timeZone: settings.timeZone,
    conditionsText: settings.legalTexts.conditions,
    privacyText: settings.legalTexts.privacy,
    returnsText: settings.legalTexts.returns,
  };
  return {
    values,
    logo: settings.logo,
    timeZones: Intl.supportedValuesOf("timeZone"),
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { actor, services } = requireConsole(context, "routes/admin/settings", null);
  let values: FormValues | null = null;
  try {
    const { fields, file } = await readFormWithFileOrRefuse(request, "logo");
    values = Object.fromEntries(
      (Object.keys(LABELS) as (keyof typeof LABELS)[])
        .filter((name): name is FieldName => name !== "logo")
        .map((name) => [name, (fields[name] ?? "").slice(0, MAX_LEGAL_TEXT_LENGTH + 1_000)]),
    ) as FormValues;
    const parsed = shopSettingsFormSchema.safeParse(fields);
    if (!parsed.success)
      return data(
        { errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), values, saved: false },
        { status: 400 },
      );
    await services.settings.save(actor, parsed.data, file);
    return { errors: undefined, values: undefined, saved: true };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return data({ errors: { [field]: error.message }, values, saved: false }, { status: error.status });
  }
}

export default function Settings({ loaderData, actionData }: Route.ComponentProps) {
  const isSaving = useNavigation().state === "submitting";
  const errors: Record<string, string> | undefined = actionData?.errors;
  const values: FormValues = actionData?.values ?? loaderData.values;
  // Keyed by what was saved: after a save the fields show the stored values, not what the browser kept.
  const formKey = JSON.stringify(loaderData.values) + (loaderData.logo?.src ?? "");
  const field = (name: FieldName, options: { hint?: string; maxLength: number; rows?: number; type?: string }) => (
    <SettingsField name={name} label={LABELS[name]} value={values[name]} error={errors?.[name]} {...options} />
  );
  return (
    <main id="main" className="console-main">
      <title>Settings | Console</title>
      <h1>Settings</h1>
      <p className="console-notice" role="status">
        {actionData?.saved ? "Settings saved. Every page shows them within a few seconds." : ""}
      </p>
      <ErrorSummary
        errors={errors}
        fieldIds={fieldIdsOf(Object.keys(LABELS))}
        labels={LABELS}
        title={CONSOLE_SUMMARY_TITLE}
      />
      <Form method="post" encType="multipart/form-data" className="console-form" noValidate key={formKey}>
        <h2>The shop</h2>
        {field("shopName", {
          hint: "Shown in the header, page titles and e-mails. Leave empty for “Storefront”.",
          maxLength: MAX_SHOP_NAME_LENGTH,
        })}
        <LogoField label={LABELS.logo} logo={loaderData.logo} errors={errors} />
        {field("supportEmail", {
          hint: "Where shoppers can write to you.",
          maxLength: 254,
          type: "email",
        })}
        {field("emailFromName", {
          hint: "The name e-mails come from; the address stays the server's. Empty: the server's own sender name, else the shop name.",
          maxLength: MAX_FROM_NAME_LENGTH,
        })}
        {field("postalAddress", {
          hint: "Shown at the foot of every e-mail.",
          maxLength: MAX_ADDRESS_LENGTH,
          rows: 4,
        })}
        {field("timeZone", {
          hint: "The dashboard's days start at its midnight, for example America/New_York or Europe/Paris.",
          maxLength: 100,
        })}
        <datalist id="time-zones">
          {loaderData.timeZones.map((zone) => (
            <option key={zone} value={zone} />
          ))}
        </datalist>
        <h2>Returns</h2>
        {field("returnAddress", { hint: "Where shoppers send items back.", maxLength: MAX_ADDRESS_LENGTH, rows: 4 })}
        {field("returnWindowDays", { hint: "Days from delivery; 0 takes no returns.", maxLength: 3 })}
        {field("returnFee", { hint: "What a return costs the shopper; 0.00 for free returns.", maxLength: 12 })}
        <h2>Legal pages</h2>
        <p className="console-hint">
          Plain text: a blank line starts a new paragraph, and a paragraph starting with “# ” is a heading. Empty: the
          shop&apos;s default text.
        </p>
        {field("conditionsText", { hint: "Shown at /conditions.", maxLength: MAX_LEGAL_TEXT_LENGTH, rows: 12 })}
        {field("privacyText", { hint: "Shown at /privacy.", maxLength: MAX_LEGAL_TEXT_LENGTH, rows: 12 })}
        {field("returnsText", {
          hint: "Shown at /returns, under the return window, fee and address.",
          maxLength: MAX_LEGAL_TEXT_LENGTH,
          rows: 12,
        })}
        {errors?.form ? <p className="console-field__error">{errors.form}</p> : null}
        <button type="submit" className="console-button console-button--primary" disabled={isSaving}>
          {isSaving ? "Saving…" : "Save settings"}
        </button>
      </Form>
    </main>
  );
}
