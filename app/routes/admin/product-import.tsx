import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/product-import";
import { productImportFormSchema } from "#shared/admin-schemas";
import { AppError } from "#shared/errors";
import { readFormWithFileOrRefuse } from "#app/form-request";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { PageHeader, StatusBadge } from "#app/features/admin/console-ui";
import { formatConsoleTime, requireConsole } from "./require-operator";

const LABELS = { file: "CSV file" };
/** The products a report lists; the counts above it cover all of them. */
const REPORT_ROWS_SHOWN = 1_000;

const OUTCOME_WORDS = { created: "created", updated: "updated", unchanged: "unchanged", error: "error" } as const;

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

function plural(count: number, word: string): string {
  return `${String(count).replace(/\B(?=(\d{3})+$)/g, ",")} ${word}${count === 1 ? "" : "s"}`;
}

type Report = NonNullable<NonNullable<Route.ComponentProps["actionData"]>["report"]>;

function ImportReportView({ report, intent }: { report: Report; intent: "preview" | "import" | null }) {
  const { counts } = report;
  const heading = intent === "import" ? "Nothing was imported" : `Preview of “${report.fileName}”`;
  return (
    <section aria-labelledby="report-heading">
      <h2 id="report-heading">{heading}</h2>
      {report.fileError ? (
        <p className="console-field__error" role="alert">
          {report.fileError}
        </p>
      ) : (
        <>
          <p className="console-count" role="status">
            {[
              intent === "import"
                ? `The file has ${counts.error} ${counts.error === 1 ? "product" : "products"} with errors: fix ${counts.error === 1 ? "it" : "them"} and import again.`
                : "",
              `${plural(report.rows, "row")}, ${plural(report.products.length, "product")} (Shopify's ${report.layout === "classic" ? "classic" : "current"} layout):`,
              `${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.error} with errors.`,
            ]
              .filter(Boolean)
              .join(" ")}
          </p>
          {report.ignoredColumns.length > 0 ? (
            <p className="console-hint">Ignored columns: {report.ignoredColumns.join(", ")}.</p>
          ) : null}
          {report.products.length > REPORT_ROWS_SHOWN ? (
            <p className="console-hint">
              The first 1,000 products are listed{counts.error > 0 ? ", errors first" : ""}.
            </p>
          ) : null}
          <table className="console-table" tabIndex={0}>
            <thead>
              <tr>
                <th scope="col" className="console-number">
                  Line
                </th>
                <th scope="col">Product</th>
                <th scope="col">Outcome</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {[
                ...report.products.filter((product) => product.outcome === "error"),
                ...report.products.filter((product) => product.outcome !== "error"),
              ]
                .slice(0, REPORT_ROWS_SHOWN)
                .map((product) => (
                  <tr key={`${product.line}-${product.handle}`}>
                    <td className="console-number">{product.line}</td>
                    <td>
                      {product.title}
                      <br />
                      <code>{product.handle}</code>
                    </td>
                    <td>
                      <StatusBadge status={product.outcome} label={OUTCOME_WORDS[product.outcome]} />
                    </td>
                    <td>
                      {product.reasons.length + product.changes.length > 0 ? (
                        <ul className="console-changes">
                          {[...product.reasons, ...product.changes].map((line) => (
                            <li key={line}>{line}</li>
                          ))}
                        </ul>
                      ) : null}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function AppliedImportReport({ applied }: { applied: NonNullable<Route.ComponentProps["loaderData"]["applied"]> }) {
  const pending = applied.pictures.filter((picture) => picture.status === "pending").length;
  return (
    <section aria-labelledby="applied-heading">
      <h2 id="applied-heading">Imported “{applied.fileName}”</h2>
      <p className="console-notice" role="status">
        {`Imported ${plural(applied.rows, "row")} at ${applied.createdAt}: ${applied.counts.created} created, ${applied.counts.updated} updated, ${applied.counts.unchanged} unchanged.`}
      </p>
      {applied.ignoredColumns.length > 0 ? (
        <p className="console-hint">Ignored columns: {applied.ignoredColumns.join(", ")}.</p>
      ) : null}
      {applied.pictures.length > 0 ? (
        <>
          <h3>Pictures</h3>
          {pending > 0 ? (
            <p className="console-hint">
              {`${pending} ${pending === 1 ? "picture is" : "pictures are"} still being fetched: the products show without a picture until then. Reload this page to see them arrive.`}
            </p>
          ) : null}
          <table className="console-table" tabIndex={0}>
            <thead>
              <tr>
                <th scope="col" className="console-number">
                  Line
                </th>
                <th scope="col">Product</th>
                <th scope="col">Address</th>
                <th scope="col">Picture</th>
              </tr>
            </thead>
            <tbody>
              {applied.pictures.map((picture) => (
                <tr key={picture.productId}>
                  <td className="console-number">{picture.line}</td>
                  <td>
                    <Link to={`/admin/products/${picture.productId}`}>{picture.title}</Link>
                  </td>
                  <td>
                    <code>{picture.url}</code>
                  </td>
                  <td>
                    <StatusBadge
                      status={picture.status}
                      label={picture.status === "stored" ? "fetched" : picture.status}
                    />
                    {picture.reason ? <p className="console-field__error">{picture.reason}</p> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
