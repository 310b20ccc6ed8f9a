// The owner's "Require two-step verification for staff" setting on the staff page.

import { Form } from "react-router";

/**
 * The owner's setting "Require two-step verification for staff": on, operators without it are sent to set it up
 * before any console page. Until it is saved once it follows the shop's mode (on with live Stripe keys).
 */
export function TwoStepPolicyForm({
  policy,
  isBusy,
}: {
  policy: { isRequired: boolean; isDefault: boolean };
  isBusy: boolean;
}) {
  return (
    <section aria-labelledby="two-step-policy">
      <h2 id="two-step-policy">Two-step verification</h2>
      <Form method="post" className="console-actions">
        <div className="console-field console-field--check">
          <label>
            <input type="checkbox" name="required" defaultChecked={policy.isRequired} key={String(policy.isRequired)} />{" "}
            Require two-step verification for staff
          </label>
        </div>
        <button type="submit" name="intent" value="two-step-policy" className="console-button" disabled={isBusy}>
          Save
        </button>
      </Form>
      {policy.isDefault ? (
        <p className="console-hint">
          Not chosen yet: on when the shop takes live payments (live Stripe keys), off otherwise.
        </p>
      ) : null}
    </section>
  );
}
