// The product form's own fields (title, description, price, featured position, status, gift card), its departments
// and its picture: each with its hint, its error under it and the aria links between them.

import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { GIFT_CARD_KIND_LABELS } from "#shared/gift-cards";

type Errors = Record<string, string> | undefined;
type Values = Partial<Record<string, string>>;

/** Title, description, and the row of price, featured position, status and gift card. */
export function ProductFields({ values, errors }: { values: Values; errors: Errors }) {
  // Each field: its label, its message under it, and aria links between them.
  const aria = (name: string, hint?: boolean) =>
    invalidFieldProps(`field-${name}`, errors?.[name], hint ? `hint-${name}` : "");
  return (
    <>
      <div className="console-field">
        <label htmlFor="field-title">Title</label>
        <input id="field-title" name="title" defaultValue={values.title} maxLength={200} required {...aria("title")} />
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
            Sold without delivery, discount or tax (unless a tax rate taxes gift cards); the buyer names its recipient.
          </p>
          <select id="field-giftCard" name="giftCard" defaultValue={values.giftCard ?? ""} {...aria("giftCard", true)}>
            <option value="">Not a gift card</option>
            <option value="denominations">{GIFT_CARD_KIND_LABELS.denominations}</option>
            <option value="any_amount">{GIFT_CARD_KIND_LABELS.any_amount}</option>
          </select>
          <FieldError fieldId="field-giftCard" message={errors?.giftCard} />
        </div>
      </div>
    </>
  );
}

/** The departments a product is in (several with Ctrl or Cmd), as the shop's two-level tree. */
export function DepartmentsField({
  departments,
  selected,
  errors,
}: {
  departments: readonly { id: string; name: string; children: readonly { id: string; name: string }[] }[];
  selected: string;
  errors: Errors;
}) {
  // Each field: its label, its message under it, and aria links between them.
  const aria = (name: string, hint?: boolean) =>
    invalidFieldProps(`field-${name}`, errors?.[name], hint ? `hint-${name}` : "");
  return (
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
        defaultValue={selected.split(",").filter(Boolean)}
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
  );
}

/** The product's picture: the current one, and a file to replace it (required for a new product). */
export function PictureField({
  image,
  hasOptions,
  errors,
}: {
  image: string | null;
  hasOptions: boolean;
  errors: Errors;
}) {
  // Each field: its label, its message under it, and aria links between them.
  const aria = (name: string, hint?: boolean) =>
    invalidFieldProps(`field-${name}`, errors?.[name], hint ? `hint-${name}` : "");
  return (
    <div className="console-field">
      <label htmlFor="field-picture">Picture</label>
      <p id="hint-picture" className="console-hint">
        JPEG, PNG or WebP, up to 10 MB.{image !== null ? " Leave empty to keep the current one." : ""}
        {hasOptions ? " A variant with a picture of its own shows that one instead." : ""}
      </p>
      {image !== null ? <img className="console-picture" src={image} alt="" width={80} height={80} /> : null}
      <input
        id="field-picture"
        name="picture"
        type="file"
        accept="image/jpeg,image/png,image/webp"
        required={image === null}
        {...aria("picture", true)}
      />
      <FieldError fieldId="field-picture" message={errors?.picture} />
    </div>
  );
}

/** "Saved" after a save (the redirect adds ?saved), announced politely. */
export function SavedNotice({ isSaved }: { isSaved: boolean }) {
  return (
    <p className="console-notice" role="status">
      {isSaved ? "Saved." : ""}
    </p>
  );
}
