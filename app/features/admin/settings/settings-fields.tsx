// The settings form's fields: a labelled input or text area with its hint and error (every setting but the logo),
// and the logo's own (the current one, a file to replace it, "Remove the logo").

import { FieldError, invalidFieldProps } from "#app/components/form/field-error";

/** One setting's field; a `rows` makes it a text area, and the time zone's input offers the page's list of zones. */
export function SettingsField({
  name,
  label,
  value,
  error,
  hint,
  maxLength,
  rows,
  type,
}: {
  name: string;
  label: string;
  value: string;
  error: string | undefined;
  hint?: string;
  maxLength: number;
  rows?: number;
  type?: string;
}) {
  const id = `field-${name}`;
  const hintId = hint ? `hint-${name}` : "";
  const common = { id, name, defaultValue: value, ...invalidFieldProps(id, error, hintId) };
  return (
    <div className="console-field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={hintId} className="console-hint">
          {hint}
        </p>
      ) : null}
      {rows ? (
        <textarea {...common} rows={rows} maxLength={maxLength} />
      ) : (
        <input
          {...common}
          type={type ?? "text"}
          maxLength={maxLength}
          autoComplete="off"
          list={name === "timeZone" ? "time-zones" : undefined}
        />
      )}
      <FieldError fieldId={id} message={error} />
    </div>
  );
}

/** The logo: PNG, JPEG or WebP up to 1 MB; empty keeps the current one. */
export function LogoField({
  label,
  logo,
  errors,
}: {
  label: string;
  logo: { src: string; width: number; height: number } | null;
  errors: Record<string, string> | undefined;
}) {
  return (
    <div className="console-field">
      <label htmlFor="field-logo">{label}</label>
      <p id="hint-logo" className="console-hint">
        PNG, JPEG or WebP, up to 1 MB. Shown in the header and the e-mails.
        {logo ? " Leave empty to keep the current one." : ""}
      </p>
      {logo ? (
        <img
          className="console-picture console-picture--logo"
          src={logo.src}
          alt="The current logo"
          width={logo.width}
          height={logo.height}
        />
      ) : null}
      <input
        id="field-logo"
        name="logo"
        type="file"
        accept="image/png,image/jpeg,image/webp"
        {...invalidFieldProps("field-logo", errors?.logo, "hint-logo")}
      />
      <FieldError fieldId="field-logo" message={errors?.logo} />
      {logo ? (
        <label className="console-check">
          <input type="checkbox" name="removeLogo" value="on" /> Remove the logo
        </label>
      ) : null}
    </div>
  );
}
