import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/product-edit";
import { adminProductSchema, errorsByField, toAdminProductInput } from "../../../shared/admin-schemas";
import { AppError } from "../../../shared/errors";
import { readFormWithFile } from "../../../shared/form-fields";
import { decimalAmount } from "../../../shared/money";
import { productPath } from "../../../shared/catalogue";
import { ErrorSummary, FieldError } from "../../features/admin/field-error";
import { requireOperator } from "./require-operator";
import { PageHeader } from "../../features/admin/console-ui";

const LABELS: Record<string, string> = {
  title: "Title",
  description: "Description",
  price: "Price",
  rating: "Rating",
  featuredPosition: "Featured position",
  status: "Status",
  departmentIds: "Departments",
  picture: "Picture",
};

type FormValues = Record<keyof typeof LABELS, string>;

/** /admin/products/new is the empty form; /admin/products/{id} edits that product. */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const { services } = requireOperator(context);
  const departments = await services.departments.listTree();
  if (params.id === "new") return { product: null, isSaved: false, departments };
  const product = await services.adminProducts.getProduct(params.id);
  if (!product) throw data(null, { status: 404 });
  return {
    departments,
    isSaved: new URL(request.url).searchParams.has("saved"),
    product: {
      id: product.id,
      slug: product.slug,
      status: product.status,
      image: product.image,
      values: {
        title: product.title,
        description: product.description,
        price: decimalAmount(product.price_cents),
        rating: String(product.rating),
        featuredPosition: product.featured_position === null ? "" : String(product.featured_position),
        status: product.status,
        departmentIds: product.departmentIds.join(","),
        picture: "",
      } satisfies FormValues,
    },
  };
}

export async function action({ context, params, request }: Route.ActionArgs) {
  const { actor, services } = requireOperator(context);
  let values: FormValues | null = null;
  try {
    const { fields, file } = await readFormWithFile(request, "picture", { repeatable: ["departmentIds"] });
    values = Object.fromEntries(Object.keys(LABELS).map((name) => [name, (fields[name] ?? "").slice(0, 10_000)])) as FormValues;
    const parsed = adminProductSchema.safeParse(fields);
    if (!parsed.success) return data({ errors: errorsByField(parsed.error.issues), values }, { status: 400 });
    const input = toAdminProductInput(parsed.data);
    const product =
      params.id === "new" ? await services.adminProducts.createProduct(actor, input, file) : await services.adminProducts.updateProduct(actor, params.id, input, file);
    return redirect(`/admin/products/${product.id}?saved`);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "NOT_FOUND") throw data(null, { status: 404 });
    // A refusal names its field (the picture, say); one without a field (an unreadable form) goes above the button.
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return data({ errors: { [field]: error.message }, values }, { status: error.status });
  }
}

export default function ProductEdit({ loaderData, actionData }: Route.ComponentProps) {
  const { product, departments } = loaderData;
  const navigation = useNavigation();
  const isSaving = navigation.state === "submitting";
  const values: Partial<FormValues> = actionData?.values ?? product?.values ?? { rating: "5", status: "active" };
  const errors: Record<string, string> | undefined = actionData?.errors;
  const isSaved = !actionData && loaderData.isSaved;
  const title = product ? `Edit “${product.values.title}”` : "New product";
  // Each field: its label, its message under it, and aria links between them.
  const describedBy = (name: string, hint?: boolean) => [hint ? `hint-${name}` : "", errors?.[name] ? `error-${name}` : ""].filter(Boolean).join(" ") || undefined;
  const invalid = (name: string) => (errors?.[name] ? true : undefined);
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
      <ErrorSummary errors={errors} labels={LABELS} />
      <Form method="post" encType="multipart/form-data" className="console-form" noValidate>
        <div className="console-field">
          <label htmlFor="field-title">Title</label>
          <input id="field-title" name="title" defaultValue={values.title} maxLength={200} required aria-invalid={invalid("title")} aria-describedby={describedBy("title")} />
          <FieldError id="error-title" message={errors?.title} />
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
            aria-invalid={invalid("description")}
            aria-describedby={describedBy("description", true)}
          />
          <FieldError id="error-description" message={errors?.description} />
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
              aria-invalid={invalid("price")}
              aria-describedby={describedBy("price", true)}
            />
            <FieldError id="error-price" message={errors?.price} />
          </div>
          <div className="console-field">
            <label htmlFor="field-rating">Rating</label>
            <select id="field-rating" name="rating" defaultValue={values.rating} aria-invalid={invalid("rating")} aria-describedby={describedBy("rating")}>
              {["5", "4", "3", "2", "1"].map((stars) => (
                <option key={stars} value={stars}>
                  {stars} star{stars === "1" ? "" : "s"}
                </option>
              ))}
            </select>
            <FieldError id="error-rating" message={errors?.rating} />
          </div>
          <div className="console-field">
            <label htmlFor="field-featuredPosition">Featured position</label>
            <p id="hint-featuredPosition" className="console-hint">
              Empty: not on the home page. A position another product holds moves that one and those after it down one place.
            </p>
            <input
              id="field-featuredPosition"
              name="featuredPosition"
              inputMode="numeric"
              defaultValue={values.featuredPosition}
              maxLength={4}
              aria-invalid={invalid("featuredPosition")}
              aria-describedby={describedBy("featuredPosition", true)}
            />
            <FieldError id="error-featuredPosition" message={errors?.featuredPosition} />
          </div>
          <div className="console-field">
            <label htmlFor="field-status">Status</label>
            <select id="field-status" name="status" defaultValue={values.status} aria-invalid={invalid("status")} aria-describedby={describedBy("status")}>
              <option value="active">Active</option>
              <option value="archived">Archived</option>
            </select>
            <FieldError id="error-status" message={errors?.status} />
          </div>
        </div>
        <div className="console-field">
          <label htmlFor="field-departmentIds">Departments</label>
          <p id="hint-departmentIds" className="console-hint">
            Where shoppers find it; choose several with Ctrl or Cmd.
          </p>
          <select
            id="field-departmentIds"
            name="departmentIds"
            multiple
            size={Math.min(10, departments.reduce((count, top) => count + 1 + top.children.length, 0))}
            defaultValue={(values.departmentIds ?? "").split(",").filter(Boolean)}
            aria-invalid={invalid("departmentIds")}
            aria-describedby={describedBy("departmentIds", true)}
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
          <FieldError id="error-departmentIds" message={errors?.departmentIds} />
        </div>
        <div className="console-field">
          <label htmlFor="field-picture">Picture</label>
          <p id="hint-picture" className="console-hint">
            JPEG, PNG or WebP, up to 10 MB.{product ? " Leave empty to keep the current one." : ""}
          </p>
          {product ? <img className="console-picture" src={product.image} alt="" width={80} height={80} /> : null}
          <input
            id="field-picture"
            name="picture"
            type="file"
            accept="image/jpeg,image/png,image/webp"
            required={!product}
            aria-invalid={invalid("picture")}
            aria-describedby={describedBy("picture", true)}
          />
          <FieldError id="error-picture" message={errors?.picture} />
        </div>
        {errors?.form ? <p className="console-field__error">{errors.form}</p> : null}
        <button type="submit" className="console-button console-button--primary" disabled={isSaving}>
          {isSaving ? "Saving…" : "Save"}
        </button>
      </Form>
    </main>
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
