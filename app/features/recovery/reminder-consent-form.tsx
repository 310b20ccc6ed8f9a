// "E-mail me about my basket and offers" for a signed-in shopper, saved by the page's own action.

import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import { BASKET_REMINDERS_LABEL } from "#shared/recovery-labels";

/**
 * "E-mail me about my basket and offers" for a signed-in shopper (the basket page, the account page): the account's
 * preference, saved by the page's own action (`intent=basket-reminders`). With JavaScript a change is saved at once
 * (one ticked while the page was still loading too); without it, the "Save" button posts the form.
 */
export function ReminderConsentForm({ isOn }: { isOn: boolean }) {
  const fetcher = useFetcher<{ basketReminders: boolean }>();
  const box = useRef<HTMLInputElement>(null);
  const save = (on: boolean) => {
    const form = new FormData();
    form.set("intent", "basket-reminders");
    if (on) form.set("basketReminders", "on");
    void fetcher.submit(form, { method: "post" });
  };
  // Ticked before the scripts ran: the box shows the shopper's choice, so save that choice.
  useEffect(() => {
    if (box.current && box.current.checked !== isOn) save(box.current.checked);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at hydration
  }, []);
  return (
    <fetcher.Form method="post" className="consent-form">
      <input type="hidden" name="intent" value="basket-reminders" />
      <label className="consent">
        <input
          ref={box}
          type="checkbox"
          name="basketReminders"
          defaultChecked={isOn}
          onChange={(event) => save(event.currentTarget.checked)}
        />
        {BASKET_REMINDERS_LABEL}
      </label>
      <noscript>
        <button type="submit" className="button button--small">
          Save
        </button>
      </noscript>
      <p className="visually-hidden" role="status">
        {fetcher.state === "idle" && fetcher.data ? (fetcher.data.basketReminders ? "Saved: on." : "Saved: off.") : ""}
      </p>
    </fetcher.Form>
  );
}
