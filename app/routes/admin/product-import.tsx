// /admin/products/import: a product CSV's preview and import, and an applied import's report.

import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/product-import";
import { productImportFormSchema } from "#shared/admin-schemas";
import { AppError } from "#shared/errors";
import { readFormWithFileOrRefuse } from "#app/form-request";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { PageHeader } from "#app/features/admin/console-ui";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { ImportReportView, AppliedImportReport } from "#app/features/admin/product-import/import-reports";

const LABELS = { file: "CSV file" };

/** /admin/products/import: the form; ?import={id}: an applied import's report, its pictures as they arrive. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/product-import");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const id = new URL(request.url).searchParams.get("import");
  if (!id) return { applied: null };
  const applied = await services.productCsv.getImport(id);
  if (!applied) throw data(null, { status: 404 });
  return { applied: { ...applied, createdAt: formatConsoleTime(applied.createdAt, timeZone) } };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { actor, services } = requireConsole(context, "routes/admin/product-import", null);
  try {
    const { fields, file, fileName } = await readFormWithFileOrRefuse(request, "file");
    const parsed = productImportFormSchema.safeParse(fields);
    if (!parsed.success)
      return data(
        {
          errors: { form: parsed.error.issues[0]?.message ?? "The form was not understood." },
          report: null,
          intent: null,
        },
        { status: 400 },
      );
    const { intent } = parsed.data;
    if (!file) return data({ errors: { file: "Choose a CSV file." }, report: null, intent }, { status: 400 });
    const upload = { name: fileName || "products.csv", bytes: file };
    if (intent === "preview") return { errors: undefined, report: await services.productCsv.preview(upload), intent };
    const outcome = await services.productCsv.importFile(actor, upload);
    if (!outcome.ok) return data({ errors: undefined, report: outcome.report, intent }, { status: 400 });
    return redirect(`/admin/products/import?import=${outcome.id}`);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return data({ errors: { file: error.message }, report: null, intent: null }, { status: error.status });
  }
}

export default function ProductImport({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const isBusy = navigation.state === "submitting";
  const errors: Record<string, string> | undefined = actionData?.errors;
  const report = actionData?.report ?? null;
  const { applied } = loaderData;
  return (
    <main id="main" className="console-main">
      <title>Import products | Console</title>
      <p className="console-breadcrumb">
        <Link to="/admin/products">Products</Link>
      </p>
      <PageHeader title="Import products">
        <p>
          A CSV in Shopify&apos;s product layout, current or classic: the file this shop&apos;s Export CSV writes, or
          the one Shopify exports. Products are matched by URL handle, then by SKU. Preview changes nothing; Import
          applies the whole file, or nothing when any row has an error.
        </p>
      </PageHeader>
      {applied ? <AppliedImportReport applied={applied} /> : null}
      <ErrorSummary errors={errors} fieldIds={fieldIdsOf(["file"])} title={CONSOLE_SUMMARY_TITLE} />
      <Form method="post" encType="multipart/form-data" className="console-form" noValidate>
        <div className="console-field">
          <label htmlFor="field-file">{LABELS.file}</label>
          <p id="hint-file" className="console-hint">
            At most 20 MB and 100,000 rows. Pictures at other addresses are fetched after the import.
          </p>
          <input
            id="field-file"
            name="file"
            type="file"
            accept=".csv,text/csv"
            {...invalidFieldProps("field-file", errors?.file, "hint-file")}
          />
          <FieldError fieldId="field-file" message={errors?.file} />
        </div>
        {errors?.form ? <p className="console-field__error">{errors.form}</p> : null}
        <div className="console-actions">
          <button type="submit" name="intent" value="preview" className="console-button" disabled={isBusy}>
            Preview
          </button>
          <button
            type="submit"
            name="intent"
            value="import"
            className="console-button console-button--primary"
            disabled={isBusy}
          >
            Import
          </button>
        </div>
      </Form>
      {report ? <ImportReportView report={report} intent={actionData?.intent ?? "preview"} /> : null}
    </main>
  );
}
