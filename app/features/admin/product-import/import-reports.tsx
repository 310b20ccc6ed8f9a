// What a product CSV import says: a preview's (or a refused import's) report, line by line with errors first, and an
// applied import's, whose pictures are fetched afterwards and shown as they arrive.

import { Link } from "react-router";
import { StatusBadge } from "#app/features/admin/console-ui";

function plural(count: number, word: string): string {
  return `${String(count).replace(/\B(?=(\d{3})+$)/g, ",")} ${word}${count === 1 ? "" : "s"}`;
}

/** The products a report lists; the counts above it cover all of them. */
const REPORT_ROWS_SHOWN = 1_000;

const OUTCOME_WORDS = { created: "created", updated: "updated", unchanged: "unchanged", error: "error" } as const;

type Counts = { created: number; updated: number; unchanged: number; error: number };

/** A file's report, before anything is written: what each product would become, or why it cannot. */
export interface ImportReport {
  fileName: string;
  fileError?: string | null;
  rows: number;
  layout: string | null;
  ignoredColumns: string[];
  counts: Counts;
  products: {
    line: number;
    handle: string;
    title: string;
    outcome: keyof typeof OUTCOME_WORDS;
    reasons: string[];
    changes: string[];
  }[];
}

/** An import as applied, its pictures each pending, fetched or refused. */
export interface AppliedImport {
  fileName: string;
  rows: number;
  createdAt: string;
  ignoredColumns: string[];
  counts: Omit<Counts, "error">;
  pictures: { productId: string; line: number; title: string; url: string; status: string; reason?: string | null }[];
}

/** The preview's report, or the refused import's ("Nothing was imported"). */
export function ImportReportView({ report, intent }: { report: ImportReport; intent: "preview" | "import" | null }) {
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

/** The applied import: its counts, and its pictures as they arrive. */
export function AppliedImportReport({ applied }: { applied: AppliedImport }) {
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
