import { useEffect, useRef } from "react";

/**
 * The list of what is wrong, above the form: it takes focus when it appears, so a screen reader reads it and a
 * keyboard user starts from it; each entry links to its field.
 */
export function ErrorSummary({ errors, labels }: { errors: Partial<Record<string, string>> | undefined; labels: Record<string, string> }) {
  const ref = useRef<HTMLDivElement>(null);
  const entries = Object.entries(errors ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === "string");
  useEffect(() => {
    if (entries.length > 0) ref.current?.focus();
  }, [errors]); // eslint-disable-line react-hooks/exhaustive-deps -- focus once per answer
  if (entries.length === 0) return null;
  return (
    <div ref={ref} tabIndex={-1} role="alert" className="form-summary" aria-labelledby="form-summary-title">
      <h2 id="form-summary-title" className="form-summary__title">
        There is a problem
      </h2>
      <ul>
        {entries.map(([field, message]) => (
          <li key={field}>{labels[field] ? <a href={`#${labels[field]}`}>{message}</a> : message}</li>
        ))}
      </ul>
    </div>
  );
}

/** The sentence under a field; its id is what the input's aria-describedby names. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="field-error">
      {message}
    </p>
  );
}
