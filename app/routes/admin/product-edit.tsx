import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/product-edit";
import {
  adminProductSchema,
  combinations,
  DEFAULT_LOW_STOCK_AT,
  isVariantFormField,
  parseVariantForm,
  toAdminProductInput,
  variantField,
  variantKey,
  variantPictureKey,
} from "#shared/admin-schemas";
import { AppError } from "#shared/errors";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { readFormWithFilesOrRefuse, requireTextIdParam } from "#app/form-request";
import { decimalAmount } from "#shared/money";
import { productPath } from "#shared/catalogue";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { requireConsole } from "./require-operator";
import { GIFT_CARD_KIND_LABELS } from "#shared/gift-cards";
import { PageHeader } from "#app/features/admin/console-ui";

const LABELS: Record<string, string> = {
  title: "Title",
  description: "Description",
  price: "Price",
  featuredPosition: "Featured position",
  status: "Status",
  giftCard: "Gift card",
  departmentIds: "Departments",
  picture: "Picture",
};

type FormValues = Record<keyof typeof LABELS, string>;

const LEDGER_REASONS = {
  edit: "Set by an operator",
  sale: "Sold",
  reserve: "Reserved for a payment",
  release: "Reservation released",
  restock: "Put back in stock",
  import: "Set by a CSV import",
} as const;

/** /admin/products/new is the empty form; /admin/products/{id} edits that product. */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/product-edit");
  const departments = await services.departments.listTree();
  if (params.id === "new") return { product: null, isSaved: false, departments, stock: null };
  const product = await services.adminProducts.getProduct(requireTextIdParam(params.id));
  if (!product) throw data(null, { status: 404 });
  const stock = await services.adminProducts.getVariantsAndLedger(params.id);
  return {
    departments,
    isSaved: new URL(request.url).searchParams.has("saved"),
    stock,
    product: {
      id: product.id,
      slug: product.slug,
      status: product.status,
      image: product.image,
      values: {
        title: product.title,
        description: product.description,
        price: decimalAmount(product.price_cents),
        featuredPosition: product.featured_position === null ? "" : String(product.featured_position),
        status: product.status,
        giftCard: product.gift_card ?? "",
        departmentIds: product.departmentIds.join(","),
        picture: "",
      } satisfies FormValues,
    },
  };
}

export async function action({ context, params, request }: Route.ActionArgs) {
  const { actor, services } = requireConsole(context, "routes/admin/product-edit", null);
  const id = params.id === "new" ? "new" : requireTextIdParam(params.id);
  let values: FormValues | null = null;
  let variantValues: Record<string, string> = {};
  try {
    const { fields, files } = await readFormWithFilesOrRefuse(
      request,
      (name) => name === "picture" || variantPictureKey(name) !== null,
      { repeatable: ["departmentIds"] },
    );
    const file = files.get("picture")?.bytes ?? null;
    const variantPictures = new Map(
      [...files].flatMap(([name, chosen]) =>
        name === "picture" ? [] : [[variantPictureKey(name)!, chosen.bytes] as const],
      ),
    );
    values = Object.fromEntries(
      Object.keys(LABELS).map((name) => [name, (fields[name] ?? "").slice(0, 10_000)]),
    ) as FormValues;
    variantValues = Object.fromEntries(
      Object.entries(fields)
        .filter(([name]) => isVariantFormField(name))
        .map(([name, value]) => [name, value.slice(0, 10_000)]),
    );
    // "Add option" shows one more option's inputs and saves nothing.
    if (fields.intent === "addOption")
      return data({ errors: undefined, values, variantValues, extraOption: true }, { status: 200 });
    const productFields = Object.fromEntries(Object.entries(fields).filter(([name]) => !isVariantFormField(name)));
    const parsed = adminProductSchema.safeParse(productFields);
    const variants = parseVariantForm(fields, new Set(variantPictures.keys()));
    const errors = {
      ...(parsed.success ? {} : fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE })),
      ...(variants.ok ? {} : variants.errors),
    };
    if (!parsed.success || !variants.ok) return data({ errors, values, variantValues }, { status: 400 });
    const input = toAdminProductInput(parsed.data);
    const product =
      id === "new"
        ? await services.adminProducts.createProduct(actor, input, file, variants.input, variantPictures)
        : await services.adminProducts.updateProduct(actor, id, input, file, variants.input, variantPictures);
    return redirect(`/admin/products/${product.id}?saved`);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "NOT_FOUND") throw data(null, { status: 404 });
    // A refusal names its field (the picture, say), or several (refused pictures: errors); one without a field (an
    // unreadable form) goes above the button.
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    const errors = isMessagesByField(error.details?.errors) ? error.details.errors : { [field]: error.message };
    return data({ errors, values, variantValues }, { status: error.status });
  }
}

function isMessagesByField(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" && value !== null && Object.values(value).every((message) => typeof message === "string")
  );
}

export default function ProductEdit({ loaderData, actionData }: Route.ComponentProps) {
  const { product, departments, stock } = loaderData;
  const navigation = useNavigation();
  const isSaving = navigation.state === "submitting";
  const values: Partial<FormValues> = actionData?.values ?? product?.values ?? { status: "active" };
  const errors: Record<string, string> | undefined = actionData?.errors;
  const isSaved = !actionData && loaderData.isSaved;
  const title = product ? `Edit “${product.values.title}”` : "New product";
  // Each field: its label, its message under it, and aria links between them.
  const aria = (name: string, hint?: boolean) =>
    invalidFieldProps(`field-${name}`, errors?.[name], hint ? `hint-${name}` : "");
  // The options and variants as submitted (after an error or "Add option"), else as saved.
  const submitted = actionData?.variantValues;
  const savedOptions = stock?.options ?? [];
  const optionValue = (index: number, part: "Name" | "Values") =>
    submitted
      ? (submitted[`option${part}${index + 1}`] ?? "")
      : part === "Name"
        ? (savedOptions[index]?.name ?? "")
        : (savedOptions[index]?.values.join(", ") ?? "");
  const shownOptions = submitted
    ? [1, 2, 3].filter(
        (index) => (submitted[`optionName${index}`] ?? "") !== "" || (submitted[`optionValues${index}`] ?? "") !== "",
      ).length
    : savedOptions.length;
  const optionRows = Math.min(3, Math.max(1, shownOptions + (actionData && "extraOption" in actionData ? 1 : 0)));
  const rowOptions = submitted
    ? [0, 1, 2]
        // Each value once: a repeated value is an error under its field, not a second row.
        .map((index) => ({
          values: [
            ...new Set(
              optionValue(index, "Values")
                .split(",")
                .map((value) => value.trim())
                .filter(Boolean),
            ),
          ],
        }))
        .filter((option) => option.values.length > 0)
    : savedOptions;
  const savedByKey = new Map((stock?.variants ?? []).map((variant) => [variantKey(variant.optionValues), variant]));
  const rows = combinations(rowOptions)
    .slice(0, 250)
    .map((values) => {
      const key = variantKey(values);
      const saved = savedByKey.get(key);
      const read = (input: Parameters<typeof variantField>[1], fallback: string) =>
        submitted ? (submitted[variantField(key, input)] ?? fallback) : fallback;
      return {
        key,
        label: values.join(" / "),
        sku: read("sku", saved?.sku ?? ""),
        price: read("price", saved ? decimalAmount(saved.priceCents) : ""),
        compareAt: read("compareAt", saved?.compareAtCents ? decimalAmount(saved.compareAtCents) : ""),
        stock: read("stock", saved ? String(saved.onHand) : ""),
        stockWas: saved ? String(saved.onHand) : "",
        lowStockAt: read("lowStockAt", String(saved?.lowStockAt ?? DEFAULT_LOW_STOCK_AT)),
        weight: read("weight", saved ? String(saved.weightGrams) : ""),
        // The variant's own picture; a row whose values changed is a new variant, with none yet.
        picture: saved?.image?.src ?? null,
        removePicture: submitted ? submitted[variantField(key, "removePicture")] === "on" : false,
        track: submitted ? submitted[variantField(key, "track")] === "on" : (saved?.stock.tracksStock ?? false),
        continueSelling: submitted
          ? submitted[variantField(key, "continue")] === "on"
          : (saved?.stock.continueSelling ?? false),
      };
    });
  const fieldFor = (name: string) => ({ name, id: `field-${name}`, ...aria(name) });
  return (
    <main id="main" className="console-main">
      <title>{`${title} | Console`}</title>
      <p className="console-breadcrumb">
        <Link to="/admin/products">Products</Link>
      </p>
      <PageHeader title={title} />
      {product ? (
        <p>
          {product.status === "active" ? (
            <Link to={productPath(product.slug)}>View on the shop</Link>
          ) : (
            "Archived: not on the shop, not for sale. Orders keep their own copy."
          )}
        </p>
      ) : null}
      <SavedNotice isSaved={isSaved} />
      <ErrorSummary
        errors={errors}
        fieldIds={fieldIdsOf([
          ...Object.keys(LABELS),
          ...Object.keys(errors ?? {}).filter((name) => isVariantFormField(name) && name !== "intent"),
        ])}
        title={CONSOLE_SUMMARY_TITLE}
      />
      <Form method="post" encType="multipart/form-data" className="console-form" noValidate>
        <div className="console-field">
          <label htmlFor="field-title">Title</label>
          <input
            id="field-title"
            name="title"
            defaultValue={values.title}
            maxLength={200}
            required
            {...aria("title")}
          />
          <FieldError fieldId="field-title" message={errors?.title} />
        </div>
        <div className="console-field">
          <label htmlFor="field-description">Description</label>
          <p id="hint-description" className="console-hint">
            Plain text; a blank line starts a new paragraph.
          </p>
          <textarea
            id="field-description"
            name="description"
            defaultValue={values.description}
            rows={6}
            maxLength={10_000}
            {...aria("description", true)}
          />
          <FieldError fieldId="field-description" message={errors?.description} />
        </div>
        <div className="console-row">
          <div className="console-field">
            <label htmlFor="field-price">Price</label>
            <p id="hint-price" className="console-hint">
              In dollars, like 12.99
            </p>
            <input
              id="field-price"
              name="price"
              inputMode="decimal"
              defaultValue={values.price}
              maxLength={20}
              required
              {...aria("price", true)}
            />
            <FieldError fieldId="field-price" message={errors?.price} />
          </div>
          <div className="console-field">
            <label htmlFor="field-featuredPosition">Featured position</label>
            <p id="hint-featuredPosition" className="console-hint">
              Empty: not on the home page. A position another product holds moves that one and those after it down one
              place.
            </p>
            <input
              id="field-featuredPosition"
              name="featuredPosition"
              inputMode="numeric"
              defaultValue={values.featuredPosition}
              maxLength={4}
              {...aria("featuredPosition", true)}
            />
            <FieldError fieldId="field-featuredPosition" message={errors?.featuredPosition} />
          </div>
          <div className="console-field">
            <label htmlFor="field-status">Status</label>
            <select id="field-status" name="status" defaultValue={values.status} {...aria("status")}>
              <option value="active">Active</option>
              <option value="archived">Archived</option>
            </select>
            <FieldError fieldId="field-status" message={errors?.status} />
          </div>
          <div className="console-field">
            <label htmlFor="field-giftCard">Gift card</label>
            <p id="hint-giftCard" className="console-hint">
              Sold without delivery, discount or tax (unless a tax rate taxes gift cards); the buyer names its
              recipient.
            </p>
            <select
              id="field-giftCard"
              name="giftCard"
              defaultValue={values.giftCard ?? ""}
              {...aria("giftCard", true)}
            >
              <option value="">Not a gift card</option>
              <option value="denominations">{GIFT_CARD_KIND_LABELS.denominations}</option>
              <option value="any_amount">{GIFT_CARD_KIND_LABELS.any_amount}</option>
            </select>
            <FieldError fieldId="field-giftCard" message={errors?.giftCard} />
          </div>
        </div>
        {rowOptions.length === 0 && rows[0] ? (
          <div className="console-row">
            <div className="console-field">
              <label htmlFor={`field-${variantField("", "sku")}`}>SKU</label>
              <input {...fieldFor(variantField("", "sku"))} defaultValue={rows[0].sku} maxLength={64} />
              <FieldError fieldId={`field-${variantField("", "sku")}`} message={errors?.[variantField("", "sku")]} />
            </div>
            <div className="console-field">
              <label htmlFor={`field-${variantField("", "weight")}`}>Weight (g)</label>
              <input
                {...fieldFor(variantField("", "weight"))}
                inputMode="numeric"
                defaultValue={rows[0].weight}
                maxLength={12}
              />
              <FieldError
                fieldId={`field-${variantField("", "weight")}`}
                message={errors?.[variantField("", "weight")]}
              />
            </div>
            <div className="console-field">
              <label htmlFor={`field-${variantField("", "stock")}`}>Stock</label>
              <input
                {...fieldFor(variantField("", "stock"))}
                inputMode="numeric"
                defaultValue={rows[0].stock}
                maxLength={8}
              />
              <input type="hidden" name={variantField("", "stockWas")} value={rows[0].stockWas} />
              <FieldError
                fieldId={`field-${variantField("", "stock")}`}
                message={errors?.[variantField("", "stock")]}
              />
            </div>
            <div className="console-field">
              <label htmlFor={`field-${variantField("", "lowStockAt")}`}>Low stock at</label>
              <input
                {...fieldFor(variantField("", "lowStockAt"))}
                inputMode="numeric"
                defaultValue={rows[0].lowStockAt}
                maxLength={6}
              />
              <FieldError
                fieldId={`field-${variantField("", "lowStockAt")}`}
                message={errors?.[variantField("", "lowStockAt")]}
              />
            </div>
            <div className="console-field console-field--check">
              <label>
                <input type="checkbox" name={variantField("", "track")} defaultChecked={rows[0].track} /> Track stock
              </label>
              <label>
                <input type="checkbox" name={variantField("", "continue")} defaultChecked={rows[0].continueSelling} />{" "}
                Continue selling when out of stock
              </label>
            </div>
          </div>
        ) : null}
        <fieldset className="console-options">
          <legend>Options</legend>
          {Array.from({ length: optionRows }, (_, index) => (
            <div key={index} className="console-row">
              <div className="console-field">
                <label htmlFor={`field-optionName${index + 1}`}>Option name</label>
                <input
                  {...fieldFor(`optionName${index + 1}`)}
                  defaultValue={optionValue(index, "Name")}
                  maxLength={60}
                />
                <FieldError fieldId={`field-optionName${index + 1}`} message={errors?.[`optionName${index + 1}`]} />
              </div>
              <div className="console-field">
                <label htmlFor={`field-optionValues${index + 1}`}>Option values</label>
                <input
                  {...fieldFor(`optionValues${index + 1}`)}
                  defaultValue={optionValue(index, "Values")}
                  placeholder="S, M, L"
                />
                <FieldError fieldId={`field-optionValues${index + 1}`} message={errors?.[`optionValues${index + 1}`]} />
              </div>
            </div>
          ))}
          {optionRows < 3 ? (
            <button type="submit" name="intent" value="addOption" className="console-button" formNoValidate>
              Add option
            </button>
          ) : null}
        </fieldset>
        {rowOptions.length > 0 ? (
          <table className="console-table console-variants">
            <caption>Variants</caption>
            <thead>
              <tr>
                <th scope="col">Variant</th>
                <th scope="col" id="col-sku">
                  SKU
                </th>
                <th scope="col" id="col-price">
                  Price
                </th>
                <th scope="col" id="col-compareAt">
                  Compare-at price
                </th>
                <th scope="col" id="col-weight">
                  Weight (g)
                </th>
                <th scope="col" id="col-stock">
                  Stock
                </th>
                <th scope="col" id="col-lowStockAt">
                  Low stock at
                </th>
                <th scope="col" id="col-track">
                  Track stock
                </th>
                <th scope="col" id="col-continue">
                  Continue selling when out of stock
                </th>
                <th scope="col">Picture</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => {
                const cell = (
                  input: "sku" | "price" | "compareAt" | "stock" | "lowStockAt" | "weight",
                  value: string,
                ) => (
                  <td>
                    <input
                      name={variantField(row.key, input)}
                      id={`field-${variantField(row.key, input)}`}
                      defaultValue={value}
                      {...(input === "weight" ? { inputMode: "numeric" as const, maxLength: 12 } : {})}
                      {...(input === "lowStockAt" ? { inputMode: "numeric" as const, maxLength: 6 } : {})}
                      aria-labelledby={`col-${input} variant-${index}`}
                      {...aria(variantField(row.key, input))}
                      size={8}
                    />
                    <FieldError
                      fieldId={`field-${variantField(row.key, input)}`}
                      message={errors?.[variantField(row.key, input)]}
                    />
                  </td>
                );
                return (
                  <tr key={row.key}>
                    <th scope="row" id={`variant-${index}`}>
                      {row.label}
                    </th>
                    {cell("sku", row.sku)}
                    {cell("price", row.price)}
                    {cell("compareAt", row.compareAt)}
                    {cell("weight", row.weight)}
                    {cell("stock", row.stock)}
                    {cell("lowStockAt", row.lowStockAt)}
                    <td>
                      <input type="hidden" name={variantField(row.key, "stockWas")} value={row.stockWas} />
                      <input
                        type="checkbox"
                        name={variantField(row.key, "track")}
                        defaultChecked={row.track}
                        aria-labelledby={`col-track variant-${index}`}
                      />
                    </td>
                    <td>
                      <input
                        type="checkbox"
                        name={variantField(row.key, "continue")}
                        defaultChecked={row.continueSelling}
                        aria-labelledby={`col-continue variant-${index}`}
                      />
                    </td>
                    <VariantPictureCell
                      field={variantField(row.key, "picture")}
                      removeField={variantField(row.key, "removePicture")}
                      label={row.label}
                      picture={row.picture}
                      isRemoveChecked={row.removePicture}
                      error={errors?.[variantField(row.key, "picture")]}
                    />
                  </tr>
                );
              })}
            </tbody>
          </table>
        ) : null}
        <div className="console-field">
          <label htmlFor="field-departmentIds">Departments</label>
          <p id="hint-departmentIds" className="console-hint">
            Where shoppers find it; choose several with Ctrl or Cmd.
          </p>
          <select
            id="field-departmentIds"
            name="departmentIds"
            multiple
            size={Math.min(
              10,
              departments.reduce((count, top) => count + 1 + top.children.length, 0),
            )}
            defaultValue={(values.departmentIds ?? "").split(",").filter(Boolean)}
            {...aria("departmentIds", true)}
          >
            {departments.map((top) => (
              <optgroup key={top.id} label={top.name}>
                <option value={top.id}>{top.name}</option>
                {top.children.map((child) => (
                  <option key={child.id} value={child.id}>
                    {top.name} › {child.name}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
          <FieldError fieldId="field-departmentIds" message={errors?.departmentIds} />
        </div>
        <div className="console-field">
          <label htmlFor="field-picture">Picture</label>
          <p id="hint-picture" className="console-hint">
            JPEG, PNG or WebP, up to 10 MB.{product ? " Leave empty to keep the current one." : ""}
            {rowOptions.length > 0 ? " A variant with a picture of its own shows that one instead." : ""}
          </p>
          {product ? <img className="console-picture" src={product.image} alt="" width={80} height={80} /> : null}
          <input
            id="field-picture"
            name="picture"
            type="file"
            accept="image/jpeg,image/png,image/webp"
            required={!product}
            {...aria("picture", true)}
          />
          <FieldError fieldId="field-picture" message={errors?.picture} />
        </div>
        {errors?.form ? <p className="console-field__error">{errors.form}</p> : null}
        <button type="submit" className="console-button console-button--primary" disabled={isSaving}>
          {isSaving ? "Saving…" : "Save"}
        </button>
      </Form>
      {stock && stock.ledger.length > 0 ? (
        <section aria-labelledby="ledger-heading">
          <h2 id="ledger-heading">Stock movements</h2>
          <table className="console-table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Variant</th>
                <th scope="col">Reason</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {stock.ledger.map((entry) => (
                <tr key={entry.id}>
                  <td>{entry.at.slice(0, 16).replace("T", " ")}</td>
                  <td>
                    {stock.variants.find((variant) => variant.id === entry.variantId)?.optionValues.join(" / ") || "—"}
                  </td>
                  <td>{LEDGER_REASONS[entry.reason]}</td>
                  <td>{entry.quantityBefore}</td>
                  <td>{entry.quantityAfter}</td>
                  <td>{entry.actor}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </main>
  );
}

/**
 * A variant row's Picture: the current one as a thumbnail, a file input (the product picture's types and limit) and,
 * when it has one, "Remove picture" (back to the product's). Named by aria-label ("Picture M / Black"), not by the
 * column header: the header's "Picture" alone would also name the product's own Picture field.
 */
function VariantPictureCell({
  field,
  removeField,
  label,
  picture,
  isRemoveChecked,
  error,
}: {
  field: string;
  removeField: string;
  label: string;
  picture: string | null;
  isRemoveChecked: boolean;
  error: string | undefined;
}) {
  return (
    <td>
      <div className="console-variant-picture">
        {picture ? (
          <img
            className="console-picture console-picture--small"
            src={picture}
            alt={`Current picture of ${label}`}
            width={40}
            height={40}
          />
        ) : null}
        <input
          type="file"
          name={field}
          id={`field-${field}`}
          accept="image/jpeg,image/png,image/webp"
          aria-label={`Picture ${label}`}
          {...invalidFieldProps(`field-${field}`, error)}
        />
        {picture ? (
          <label>
            <input
              type="checkbox"
              name={removeField}
              defaultChecked={isRemoveChecked}
              aria-label={`Remove picture ${label}`}
            />{" "}
            Remove picture
          </label>
        ) : null}
      </div>
      <FieldError fieldId={`field-${field}`} message={error} />
    </td>
  );
}

/** "Saved" after a save (the redirect adds ?saved), announced politely. */
function SavedNotice({ isSaved }: { isSaved: boolean }) {
  return (
    <p className="console-notice" role="status">
      {isSaved ? "Saved." : ""}
    </p>
  );
}
