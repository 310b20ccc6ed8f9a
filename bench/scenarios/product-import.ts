import { waitUntilIdle } from "../lib/process-stats.ts";
import { integer, kB, ms, round, table } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import { startShopServer, type RunningServer } from "../lib/server.ts";
import { projectRoot } from "../lib/settings.ts";

/** Rows of the file: products with two sizes each, every variant with its stock. */
export const IMPORT_ROWS = 10_000;
/** An import of IMPORT_ROWS rows finishes within this on PGlite (the console's request, one transaction). */
export const IMPORT_TARGET_S = 30;

const OPERATOR = { email: "bench-importer@example.com", password: "bench importer violet tractor" };
const DEPARTMENTS = [
  "Books",
  "Home & Kitchen",
  "Electronics",
  "Computers > Monitors",
  "Computers > Tablets",
  "Garden",
  "Toys",
  "Sports > Running",
  "Sports > Cycling",
  "Music",
];

export interface ImportStep {
  step: string;
  seconds: number;
  status: number;
  /** What the page said of the file ("… 5000 created, …"), or the download's size. */
  outcome: string;
}

export interface ProductImportResult {
  rows: number;
  products: number;
  fileBytes: number;
  steps: ImportStep[];
  importSeconds: number;
  serverErrorLogLines: number;
}

/** Shopify's current layout: IMPORT_ROWS / 2 products, each in sizes S and M with stock, an HTML description, a department. */
function generateFile(): string {
  const header =
    "URL handle,Title,Description,Vendor,Type,Tags,Status,Option1 name,Option1 value,SKU,Price,Compare-at price,Charge tax,Inventory tracker,Inventory quantity,Continue selling when out of stock,Weight value (grams),Product image URL,Departments";
  const lines = [header];
  for (let product = 1; product <= IMPORT_ROWS / 2; product++) {
    const handle = `bench-import-${product}`;
    const price = (500 + ((product * 7919) % 20_000)) / 100;
    lines.push(
      `${handle},"Bench Import Product ${product}, Size Range","<p>A generated product for the import benchmark.</p><p>Second paragraph, with <b>bold</b> text.</p>",Bench Co,Bench,"bench, generated",active,Size,S,${handle}-s,${price.toFixed(2)},,TRUE,shopify,${product % 40},DENY,250,,${DEPARTMENTS[product % DEPARTMENTS.length]}`,
      `${handle},,,,,,,,M,${handle}-m,${(price + 1).toFixed(2)},,TRUE,shopify,${(product * 3) % 40},DENY,260,,`,
    );
  }
  return `${lines.join("\n")}\n`;
}

async function signIn(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: baseUrl },
    body: new URLSearchParams({ intent: "sign-in", email: OPERATOR.email, password: OPERATOR.password }),
  });
  const cookie = /sf_session=[^;]+/.exec(response.headers.get("set-cookie") ?? "")?.[0];
  if (!cookie) throw new Error(`signing in the bench operator answered ${response.status} without a session cookie`);
  return cookie;
}

/** One press of the import page's Preview or Import, as a browser without JavaScript sends it. */
async function postFile(
  baseUrl: string,
  cookie: string,
  intent: "preview" | "import",
  csv: string,
): Promise<ImportStep> {
  const form = new FormData();
  form.set("intent", intent);
  form.set("file", new File([csv], "bench.csv", { type: "text/csv" }));
  const started = performance.now();
  const response = await fetch(`${baseUrl}/admin/products/import`, {
    method: "POST",
    redirect: "manual",
    body: form,
    headers: { cookie, accept: "text/html", origin: baseUrl },
  });
  const page = await response.text();
  const seconds = round((performance.now() - started) / 1000, 2);
  const said =
    /\d+ created, \d+ updated, \d+ unchanged(, \d+ with errors)?/.exec(page)?.[0] ??
    (response.headers.get("location") ? `redirected to ${response.headers.get("location")}` : page.slice(0, 200));
  return { step: intent === "preview" ? "Preview" : "Import", seconds, status: response.status, outcome: said };
}

/**
 * The console's CSV import of 10,000 rows (5,000 products in two sizes, with stock, descriptions in HTML and
 * departments) on PGlite, through HTTP as an operator's browser sends it: Preview, Import (one transaction), the
 * import's report, Preview of the same file again (every product unchanged), then the export of the whole catalogue.
 * A server of its own, started with an operator (OPERATOR_EMAIL); target: the import under 30 s.
 */
export const productImportScenario: Scenario<ProductImportResult> = {
  name: "productImport",
  title: `Product CSV import (${integer(IMPORT_ROWS)} rows) and export, PGlite`,
  scope: "each-database",
  databases: ["pglite"],
  plannedSeconds: () => 180,

  async run({ log }) {
    const csv = generateFile();
    let server: RunningServer | undefined;
    try {
      server = await startShopServer(
        projectRoot,
        { kind: "pglite" },
        { env: { OPERATOR_EMAIL: OPERATOR.email, OPERATOR_PASSWORD: OPERATOR.password }, startTimeoutMs: 180_000 },
      );
      await waitUntilIdle(server.pid);
      const cookie = await signIn(server.baseUrl);
      const steps: ImportStep[] = [];
      const measure = async (step: Promise<ImportStep>) => {
        const done = await step;
        log(`  ${done.step}: ${done.seconds} s, ${done.status}, ${done.outcome}`);
        steps.push(done);
        return done;
      };
      await measure(postFile(server.baseUrl, cookie, "preview", csv));
      const imported = await measure(postFile(server.baseUrl, cookie, "import", csv));
      if (imported.status !== 302) throw new Error(`the import answered ${imported.status}: ${imported.outcome}`);
      await measure(
        postFile(server.baseUrl, cookie, "preview", csv).then((step) => ({
          ...step,
          step: "Preview again (the same file)",
        })),
      );
      const started = performance.now();
      // Sent gzipped as a stream; fetch decodes it, so the size is the CSV's own.
      const exported = await fetch(`${server.baseUrl}/admin/products/export`, {
        headers: { cookie, "accept-encoding": "gzip" },
      });
      const csvBytes = (await exported.arrayBuffer()).byteLength;
      const encoding = exported.headers.get("content-encoding") ?? "none";
      steps.push({
        step: "Export CSV",
        seconds: round((performance.now() - started) / 1000, 2),
        status: exported.status,
        outcome: `${kB(csvBytes)} of CSV, Content-Encoding: ${encoding}`,
      });
      log(`  Export: ${steps.at(-1)!.seconds} s, ${steps.at(-1)!.outcome}`);
      return {
        rows: IMPORT_ROWS,
        products: IMPORT_ROWS / 2,
        fileBytes: Buffer.byteLength(csv),
        steps,
        importSeconds: imported.seconds,
        serverErrorLogLines: server.errorLog().count,
      };
    } finally {
      await server?.stop();
    }
  },

  render(measurements) {
    return measurements
      .map((measurement) => {
        if (!measurement.result)
          return `${measurement.databaseLabel}: not measured (${measurement.error ?? "no result"}).`;
        const result = measurement.result;
        return [
          `${measurement.databaseLabel}: a file of ${integer(result.rows)} rows (${integer(result.products)} products, ${kB(result.fileBytes)}), posted as the import page's form`,
          "",
          table(
            ["Step", "Time", "Status", "Outcome"],
            result.steps.map((step) => [step.step, ms(step.seconds * 1000), step.status, step.outcome]),
            ["l", "r", "r", "l"],
          ),
          "",
          `Import: ${result.importSeconds} s (target under ${IMPORT_TARGET_S} s). Server error log lines: ${result.serverErrorLogLines}.`,
        ].join("\n");
      })
      .join("\n\n");
  },

  missedTargets(result, databaseLabel) {
    return result.importSeconds >= IMPORT_TARGET_S
      ? [
          `${databaseLabel}: the import of ${integer(result.rows)} rows took ${result.importSeconds} s (target under ${IMPORT_TARGET_S} s)`,
        ]
      : [];
  },
};
