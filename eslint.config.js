import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";

/**
 * The layers, as import rules (docs/ARCHITECTURE.md): the server never imports the pages (app/); the test processor
 * package imports nothing of the shop; the shop reaches the package only through its entry points, and only from the
 * composition root (server/shop.ts) and the payment page's card entry (app/features/payment/card-entry.tsx).
 */
const PROCESSOR = "@storefront/stripe-test-processor";
const processorInternals = {
  group: [`${PROCESSOR}/*/**`, `${PROCESSOR}/src`, `${PROCESSOR}/src/**`, "**/packages/**"],
  message: "Reach the test processor through its package entry points only.",
};
const processorAnywhere = {
  group: [PROCESSOR, `${PROCESSOR}/*`, "**/packages/**"],
  message:
    "Only server/shop.ts mounts the test processor, and only app/features/payment/card-entry.tsx shows its card field.",
};
const componentPatterns = [
  { group: ["**/server/**", "\\#server/**"], message: "Components must not import server code." },
  // Schemas are for the server's validation; in a component they would ship zod to every shopper.
  { group: ["zod", "**/*-schemas"], message: "Components must not import zod or request schemas (bundle size)." },
  // The pictures' built addresses come with a loader's data; in a component every one of them would ship in the script.
  {
    group: ["**/shop-pictures"],
    message: "Components must not import shared/shop-pictures (a loader passes the addresses).",
  },
];
const restrict = (...patterns) => ({ "no-restricted-imports": ["error", { patterns }] });

/**
 * The server's folders (and its files at the top) from the top down: each imports only what is listed below it, so
 * every import arrow inside server/ points down. The console's read queries (admin/) sit above the domains they read;
 * what several domains share (the audit log, pictures, rate limits, the shop's calendar) sits below them. The test
 * harness and the folders that hold only tests (testing/, quality/, security/) may reach anything.
 * server/quality/import-layers.test.ts fails when a folder of server/ is missing here.
 */
export const SERVER_LAYERS = [
  "main.ts",
  "shop.ts",
  "http",
  "services.ts",
  "db/migrate",
  "imports",
  "sales",
  "admin",
  "withdrawals",
  "returns",
  "refunds",
  "gift-cards",
  "recovery",
  "accounts",
  "checkout",
  "balances",
  "reviews",
  "stock-alerts",
  "two-step",
  "pricing/quote.ts",
  "addresses",
  "email",
  "orders",
  "promotions",
  "sessions",
  "basket",
  "departments",
  "retention",
  "settings",
  "shipping",
  "audit",
  "catalogue",
  "inventory",
  "data-dir-lock.ts",
  "holds",
  "pictures",
  "rate-limits",
  "background",
  "config.ts",
  "imports/csv-download.ts",
  "imports/csv-cells.ts",
  "db",
  "metrics",
  "payments",
  "calendar",
  "logger.ts",
  "pricing",
  "tokens.ts",
];
const serverAppBan = {
  group: ["**/app/**", "\\#app/**", "!**/http/app"],
  message: "The server never imports app/: what routes need lives in server/ (see server/http/request-context.ts).",
};
/**
 * An import specifier that reaches a layer, from anywhere in server/ (#server/…, ./… at the top or beside it, ../… in
 * a folder). A layer is a folder, a file at the top ("config.ts"), or a file inside a folder ("pricing/quote.ts")
 * placed apart from the rest of its folder.
 */
function layerSpecifier(layer) {
  if (layer === "db/migrate") return String.raw`^(#server/db/|\./(db/)?|(\.\./)+db/)migrat(e(\.ts)?$|ions/)`;
  const slash = layer.lastIndexOf("/");
  if (layer.endsWith(".ts") && slash > 0) {
    const folder = layer.slice(0, slash);
    const name = layer.slice(slash + 1, -3);
    return String.raw`^(#server/${folder}/|\./(${folder}/)?|(\.\./)+${folder}/)${name}(\.ts)?$`;
  }
  // A folder's files placed apart in a layer of their own (imports/csv-download.ts) are judged by that layer.
  const apart = SERVER_LAYERS.filter((other) => other.startsWith(`${layer}/`) && other.endsWith(".ts"));
  const besides = apart.map((other) => other.slice(layer.length + 1, -3)).join("|");
  const folder = besides ? `${layer}(/(?!(${besides})(\\.ts)?$)|$)` : `${layer}(/|$)`;
  const name = layer.endsWith(".ts") ? `${layer.slice(0, -3)}(\\.ts)?$` : folder;
  return String.raw`^(#server/|\./|(\.\./)+)` + name;
}
/** The files a layer's rule applies to: a folder's, less its tests and the files placed in layers of their own. */
function layerFiles(layer) {
  if (layer === "db/migrate") return { files: ["server/db/migrate.ts", "server/db/migrations/**"] };
  if (layer.endsWith(".ts")) return { files: [`server/${layer}`] };
  const ignores = ["**/*.test.ts", "**/*.test.tsx"];
  for (const apart of SERVER_LAYERS.filter((other) => other.startsWith(`${layer}/`)))
    ignores.push(...layerFiles(apart).files);
  return { files: [`server/${layer}/**`], ignores };
}
const serverLayerConfigs = SERVER_LAYERS.slice(1).map((layer, index) => {
  const above = SERVER_LAYERS.slice(0, index + 1);
  return {
    ...layerFiles(layer),
    rules: restrict(layer === "shop.ts" ? processorInternals : processorAnywhere, serverAppBan, {
      regex: `(${above.map(layerSpecifier).join(")|(")})`,
      message: `server/${layer} imports only what is below it in SERVER_LAYERS (eslint.config.js): every import arrow inside server/ points down. Move what both need down a layer, or have the caller above pass it in.`,
    }),
  };
});

export default tseslint.config(
  { ignores: ["build/", ".react-router/", "node_modules/", "data/", "test-results/", "playwright-report/", "public/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["scripts/**/*.js", "*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly" } },
  },
  {
    // No import cycles anywhere in the shop or the package. import-x does not follow type-only imports, which couple
    // modules as much: `npm run lint:cycles` (madge, part of `npm run lint`) finds cycles through those too.
    files: ["{app,server,shared,packages}/**/*.{ts,tsx}"],
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver": undefined,
      "import-x/resolver-next": [createTypeScriptImportResolver({ alwaysTryTypes: true })],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
  {
    // Checkout, its hold and pricing carry returns, store credit and gift cards: each stays small enough to read whole.
    // A factory's closure counts as the function it is.
    files: ["server/checkout/**/*.ts", "server/holds/**/*.ts", "server/pricing/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "max-lines": ["error", { max: 500, skipBlankLines: false, skipComments: false }],
      "max-lines-per-function": ["error", { max: 150, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  { files: ["server/**", "shared/**", "app/**"], rules: restrict(processorAnywhere) },
  {
    files: ["server/**", "shared/**"],
    rules: restrict(processorAnywhere, {
      group: ["**/app/**", "\\#app/**", "!**/http/app"],
      message: "The server never imports app/: what routes need lives in server/ (see server/http/request-context.ts).",
    }),
  },
  {
    files: ["server/shop.ts"],
    rules: restrict(processorInternals, {
      group: ["**/app/**", "\\#app/**", "!**/http/app"],
      message: "The server never imports app/.",
    }),
  },
  ...serverLayerConfigs,
  // Routes and entries reach the server only through the request context (app/context.ts), never by importing it.
  {
    files: ["app/**"],
    ignores: ["app/context.ts", "app/components/**", "app/features/**"],
    rules: restrict(processorAnywhere, {
      group: ["**/server/**", "\\#server/**"],
      message: "app/ reaches the server only through the request context (app/context.ts).",
    }),
  },
  // A page action reads its form through app/form-request.ts, which answers a form it cannot read with a 400 that names
  // the field: never the form reader beneath it, request.formData() or an empty form in place of an unreadable one.
  {
    files: ["app/routes/**"],
    rules: {
      ...restrict(
        processorAnywhere,
        {
          group: ["**/server/**", "\\#server/**"],
          message: "app/ reaches the server only through the request context (app/context.ts).",
        },
        { group: ["**/form-fields", "\\#shared/form-fields"], message: "Read a page's form with #app/form-request." },
      ),
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name='formData']",
          message: "Read a page's form with #app/form-request (a 400 naming the field, never a 500).",
        },
        {
          selector: "CallExpression[callee.property.name='catch'] > ArrowFunctionExpression > ObjectExpression.body",
          message: "A body that cannot be read is refused (#app/form-request), never taken as empty.",
        },
      ],
    },
  },
  // Components never reach into the server: data comes from loaders, through the request context.
  { files: ["app/components/**", "app/features/**"], rules: restrict(processorAnywhere, ...componentPatterns) },
  { files: ["app/features/payment/card-entry.tsx"], rules: restrict(processorInternals, ...componentPatterns) },
  {
    // The test processor is a product of its own: nothing of the shop.
    files: ["packages/stripe-test-processor/**"],
    rules: restrict({
      group: ["**/server/**", "**/app/**", "**/shared/**", "../../*", "storefront", "storefront/**"],
      message: "The test processor imports nothing of the shop.",
    }),
  },
);
