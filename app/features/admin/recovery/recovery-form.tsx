// The basket reminders' settings form: whether they are sent, how long after the basket's last change, a second
// reminder a day later, and the promotion code it may carry.

import { Form } from "react-router";
import { ConsoleField } from "#app/features/admin/console-field";

/** The settings as saved (or the defaults, until they are). */
export interface RecoverySettingsView {
  enabled: boolean;
  delayHours: number;
  secondReminder: boolean;
  secondPromotionCode: string | null;
  isSaved: boolean;
}

/** The form, drawn again as typed when refused. */
export function RecoveryForm({
  settings,
  refused,
  isBusy,
}: {
  settings: RecoverySettingsView;
  refused: { errors: Record<string, string>; values: Record<string, string> } | null;
  isBusy: boolean;
}) {
  const typed = (name: string, saved: string) => (refused ? (refused.values[name] ?? "") : saved);
  const ticked = (name: string, saved: boolean) => (refused ? refused.values[name] === "on" : saved);
  return (
    <Form method="post" className="console-form" noValidate>
      {refused?.errors.form ? (
        <p className="console-field__error" role="alert">
          {refused.errors.form}
        </p>
      ) : null}
      <div className="console-field console-field--check">
        <label>
          <input type="checkbox" name="enabled" defaultChecked={ticked("enabled", settings.enabled)} /> Send basket
          reminders
        </label>
      </div>
      <ConsoleField
        form="recovery"
        name="delayHours"
        label="Hours after the basket's last change"
        hint={settings.isSaved ? undefined : "Until saved here, RECOVERY_HOURS applies."}
        defaultValue={typed("delayHours", String(settings.delayHours))}
        error={refused?.errors.delayHours}
      />
      <div className="console-field console-field--check">
        <label>
          <input
            type="checkbox"
            name="secondReminder"
            defaultChecked={ticked("secondReminder", settings.secondReminder)}
          />{" "}
          Send a second reminder 24 hours later
        </label>
      </div>
      <ConsoleField
        form="recovery"
        name="secondPromotionCode"
        label="Promotion code in the second reminder (optional)"
        hint="A code from Promotions; its own limits and dates still apply at checkout."
        defaultValue={typed("secondPromotionCode", settings.secondPromotionCode ?? "")}
        error={refused?.errors.secondPromotionCode}
      />
      <div>
        <button type="submit" className="console-button console-button--primary" disabled={isBusy}>
          Save
        </button>
      </div>
    </Form>
  );
}
