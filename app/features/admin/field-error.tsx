import { useEffect, useRef } from "react";

/** The message under a field, named by the field's aria-describedby. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <p id={id} className="console-field__error">
      {message}
    </p>
  ) : null;
}

/**
 * The list of what to fix, above the form. It takes focus when it appears, so a screen reader announces it and the
 * keyboard starts there; each entry links to its field.
 */
export function ErrorSummary({ errors, labels }: { errors: Record<string, string> | undefined; labels: Record<string, string> }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (errors && Object.keys(errors).length > 0) ref.current?.focus();
  }, [errors]);
  if (!errors || Object.keys(errors).length === 0) return null;
  return (
    <div ref={ref} className="console-error-summary" role="alert" tabIndex={-1} aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">Please correct the following</h2>
      <ul>
        {Object.entries(errors).map(([field, message]) => (
          <li key={field}>{labels[field] ? <a href={`#field-${field}`}>{message}</a> : message}</li>
        ))}
      </ul>
    </div>
  );
}
