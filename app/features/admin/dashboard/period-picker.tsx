// The dashboard's period: its tabs (today, the last 7 and 30 days) and a custom range of dates, said wrong by its
// fields when it cannot be shown.

import { Form, Link } from "react-router";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";

/** The period tabs, the one shown marked as the current page. */
export function PeriodTabs({ tabs, period }: { tabs: { key: string; label: string }[]; period: string }) {
  return (
    <ul className="console-tabs" aria-label="Period">
      {tabs.map(({ key, label }) => (
        <li key={key}>
          <Link
            to={key === "today" ? "/admin" : `/admin?period=${key}`}
            aria-current={period === key ? "page" : undefined}
          >
            {label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** "Custom range": From and To, as typed, with their errors. */
export function CustomRangeForm({
  typed,
  errors,
}: {
  typed: { from: string; to: string };
  errors: Record<string, string> | undefined;
}) {
  return (
    <>
      <ErrorSummary errors={errors} fieldIds={fieldIdsOf(["from", "to"])} title={CONSOLE_SUMMARY_TITLE} />
      <Form
        method="get"
        action="/admin"
        className="console-form console-form--inline"
        aria-label="Custom range"
        noValidate
      >
        <input type="hidden" name="period" value="custom" />
        <div className="console-field">
          <label htmlFor="field-from">From</label>
          <input
            id="field-from"
            name="from"
            type="date"
            defaultValue={typed.from}
            key={`from-${typed.from}`}
            {...invalidFieldProps("field-from", errors?.from)}
          />
          <FieldError fieldId="field-from" message={errors?.from} />
        </div>
        <div className="console-field">
          <label htmlFor="field-to">To</label>
          <input
            id="field-to"
            name="to"
            type="date"
            defaultValue={typed.to}
            key={`to-${typed.to}`}
            {...invalidFieldProps("field-to", errors?.to)}
          />
          <FieldError fieldId="field-to" message={errors?.to} />
        </div>
        <button type="submit" className="console-button">
          Show
        </button>
      </Form>
    </>
  );
}
