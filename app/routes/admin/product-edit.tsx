// /admin/products/{id} and /new: the product form (fields, options, variants, stock, pictures) and its save.

import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/product-edit";
import {
  adminProductSchema,
  isVariantFormField,
  parseVariantForm,
  toAdminProductInput,
  variantPictureKey,
} from "#shared/admin-schemas";
import { AppError } from "#shared/errors";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { readFormWithFilesOrRefuse, requireTextIdParam } from "#app/form-request";
import { decimalAmount } from "#shared/money";
import { productPath } from "#shared/catalogue";
import { ErrorSummary } from "#app/components/form/error-summary";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { requireConsole } from "./require-operator";
import { PageHeader } from "#app/features/admin/console-ui";
import { variantRows } from "#app/features/admin/product-edit/variant-rows";
import {
  DepartmentsField,
  PictureField,
  ProductFields,
  SavedNotice,
} from "#app/features/admin/product-edit/product-fields";
import { OptionsFieldset, SingleVariantFields, VariantsTable } from "#app/features/admin/product-edit/variant-fields";
import { StockLedger } from "#app/features/admin/product-edit/stock-ledger";

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
  const { optionRows, optionValue, rowOptions, rows } = variantRows({
    submitted: actionData?.variantValues,
    savedOptions: stock?.options ?? [],
    savedVariants: stock?.variants ?? [],
    extraOption: Boolean(actionData && "extraOption" in actionData),
  });
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
        <ProductFields values={values} errors={errors} />
        {rowOptions.length === 0 && rows[0] ? <SingleVariantFields row={rows[0]} errors={errors} /> : null}
        <OptionsFieldset optionRows={optionRows} optionValue={optionValue} errors={errors} />
        {rowOptions.length > 0 ? <VariantsTable rows={rows} errors={errors} /> : null}
        <DepartmentsField departments={departments} selected={values.departmentIds ?? ""} errors={errors} />
        <PictureField image={product ? product.image : null} hasOptions={rowOptions.length > 0} errors={errors} />
        {errors?.form ? <p className="console-field__error">{errors.form}</p> : null}
        <button type="submit" className="console-button console-button--primary" disabled={isSaving}>
          {isSaving ? "Saving…" : "Save"}
        </button>
      </Form>
      {stock && stock.ledger.length > 0 ? <StockLedger stock={stock} /> : null}
    </main>
  );
}
