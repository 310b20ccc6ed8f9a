// The error summary above a refused form: it takes focus when it appears and links each message to its field, for
// screen reader and keyboard users.

import { useEffect, useId, useRef } from "react";
import type { FieldErrors } from "#shared/form-errors";

/**
 * The list of what is wrong, above the form: it takes focus when it appears, so a screen reader reads it and a
 * keyboard user starts from it (once per answer: pass the answer's own object, not one built at each render). Each
 * entry whose field is on the page links to that field's input (`fieldIds` maps a field name to its input's id); the
 * others (the form's own error, say) are plain sentences.
 */
export function ErrorSummary({
  errors,
  fieldIds,
  labels,
  title = "There is a problem",
  headingLevel = 2,
  className,
}: {
  errors: FieldErrors | undefined;
  fieldIds: Partial<Record<string, string>>;
  /** Where a sentence needs its field's name to be understood in a list ("ZIP code: Enter a ZIP code."). */
  labels?: Partial<Record<string, string>>;
  title?: string;
  headingLevel?: 2 | 3;
  className?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const entries = Object.entries(errors ?? {}).filter(
    (entry): entry is [string, string] => typeof entry[1] === "string",
  );
  useEffect(() => {
    if (entries.length > 0) ref.current?.focus();
  }, [errors]); // eslint-disable-line react-hooks/exhaustive-deps -- focus once per answer
  if (entries.length === 0) return null;
  const Heading = headingLevel === 3 ? "h3" : "h2";
  return (
    <div
      ref={ref}
      tabIndex={-1}
      role="alert"
      className={className ? `form-summary ${className}` : "form-summary"}
      aria-labelledby={titleId}
    >
      <Heading id={titleId} className="form-summary__title">
        {title}
      </Heading>
      <ul>
        {entries.map(([field, message]) => {
          const fieldId = fieldIds[field];
          const label = labels?.[field];
          const sentence = label ? `${label}: ${message}` : message;
          return <li key={field}>{fieldId ? <a href={`#${fieldId}`}>{sentence}</a> : sentence}</li>;
        })}
      </ul>
    </div>
  );
}
