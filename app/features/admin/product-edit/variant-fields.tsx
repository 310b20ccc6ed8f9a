// The product form's stock and variants: a product without options has one row of SKU, weight and stock fields; with
// options, an "Options" section and a table of one row per combination of their values.

import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { variantField } from "#shared/product-variant-fields";
import type { VariantRow } from "./variant-rows";

type Errors = Record<string, string> | undefined;

/** SKU, weight, stock, low stock at and the two stock choices of a product without options. */
export function SingleVariantFields({ row, errors }: { row: VariantRow; errors: Errors }) {
  const aria = (name: string) => invalidFieldProps(`field-${name}`, errors?.[name], "");
  const fieldFor = (name: string) => ({ name, id: `field-${name}`, ...aria(name) });
  return (
    <div className="console-row">
      <div className="console-field">
        <label htmlFor={`field-${variantField("", "sku")}`}>SKU</label>
        <input {...fieldFor(variantField("", "sku"))} defaultValue={row.sku} maxLength={64} />
        <FieldError fieldId={`field-${variantField("", "sku")}`} message={errors?.[variantField("", "sku")]} />
      </div>
      <div className="console-field">
        <label htmlFor={`field-${variantField("", "weight")}`}>Weight (g)</label>
        <input {...fieldFor(variantField("", "weight"))} inputMode="numeric" defaultValue={row.weight} maxLength={12} />
        <FieldError fieldId={`field-${variantField("", "weight")}`} message={errors?.[variantField("", "weight")]} />
      </div>
      <div className="console-field">
        <label htmlFor={`field-${variantField("", "stock")}`}>Stock</label>
        <input {...fieldFor(variantField("", "stock"))} inputMode="numeric" defaultValue={row.stock} maxLength={8} />
        <input type="hidden" name={variantField("", "stockWas")} value={row.stockWas} />
        <FieldError fieldId={`field-${variantField("", "stock")}`} message={errors?.[variantField("", "stock")]} />
      </div>
      <div className="console-field">
        <label htmlFor={`field-${variantField("", "lowStockAt")}`}>Low stock at</label>
        <input
          {...fieldFor(variantField("", "lowStockAt"))}
          inputMode="numeric"
          defaultValue={row.lowStockAt}
          maxLength={6}
        />
        <FieldError
          fieldId={`field-${variantField("", "lowStockAt")}`}
          message={errors?.[variantField("", "lowStockAt")]}
        />
      </div>
      <div className="console-field console-field--check">
        <label>
          <input type="checkbox" name={variantField("", "track")} defaultChecked={row.track} /> Track stock
        </label>
        <label>
          <input type="checkbox" name={variantField("", "continue")} defaultChecked={row.continueSelling} /> Continue
          selling when out of stock
        </label>
      </div>
    </div>
  );
}

/** Up to three options, each a name and its values; "Add option" draws one more. */
export function OptionsFieldset({
  optionRows,
  optionValue,
  errors,
}: {
  optionRows: number;
  optionValue: (index: number, part: "Name" | "Values") => string;
  errors: Errors;
}) {
  const aria = (name: string) => invalidFieldProps(`field-${name}`, errors?.[name], "");
  const fieldFor = (name: string) => ({ name, id: `field-${name}`, ...aria(name) });
  return (
    <fieldset className="console-options">
      <legend>Options</legend>
      {Array.from({ length: optionRows }, (_, index) => (
        <div key={index} className="console-row">
          <div className="console-field">
            <label htmlFor={`field-optionName${index + 1}`}>Option name</label>
            <input {...fieldFor(`optionName${index + 1}`)} defaultValue={optionValue(index, "Name")} maxLength={60} />
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
  );
}

/** The variants table: a row per combination, each input labelled by its column and its row. */
export function VariantsTable({ rows, errors }: { rows: VariantRow[]; errors: Errors }) {
  const aria = (name: string) => invalidFieldProps(`field-${name}`, errors?.[name], "");
  return (
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
          const cell = (input: "sku" | "price" | "compareAt" | "stock" | "lowStockAt" | "weight", value: string) => (
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
