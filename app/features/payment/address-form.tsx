// The payment page's delivery address: a saved address to choose, or the form with each country's fields and the
// guest's receipt e-mail.

import { useMemo, useState } from "react";
import { useFetcher } from "react-router";
import { useEarlyInput } from "#app/components/form/early-input";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import {
  ADDRESS_FIELD_ORDER,
  ADDRESS_LIMITS,
  COUNTRIES,
  US_STATES,
  addressLines,
  type AddressErrors,
  type AddressField,
  type DeliveryAddress,
} from "#shared/address";
import { BASKET_REMINDERS_LABEL } from "#shared/recovery-labels";

export interface SavedAddressChoice {
  id: string;
  address: DeliveryAddress;
}

/** What the payment route's action answers to an address form. */
export type AddressActionData = { ok: true } | { ok: false; errors: AddressErrors; values: Record<string, string> };

interface AddressSectionProps {
  current: DeliveryAddress | null;
  contactEmail: string | null;
  /** "E-mail me about my basket and offers" as it stands: a guest's tick, or the account's preference. */
  reminderConsent: boolean;
  isGuest: boolean;
  saved: SavedAddressChoice[];
  /** The action's answer when the form was posted without JavaScript (the page was rendered from it). */
  actionData: AddressActionData | undefined;
  /** A refusal of POST /checkout/address posted without JavaScript, by its sentence. */
  redirectedError: string | null;
}

const LABELS: Record<AddressField, string> = {
  name: "Full name",
  line1: "Address line 1",
  line2: "Address line 2 (optional)",
  city: "City",
  region: "State",
  postalCode: "ZIP code",
  country: "Country",
  email: "E-mail for your receipt",
};

function labelOf(field: AddressField | "form", country: string): string {
  if (field === "form") return "Delivery address";
  if (field === "region") return country === "US" ? "State" : "Region";
  if (field === "postalCode") return country === "US" ? "ZIP code" : "Postal code";
  return LABELS[field];
}

/**
 * "Delivery Address" on /payment: the address in use, a signed-in shopper's saved addresses to choose from, and the
 * form for a new one. Every form posts to the payment route's action and works without JavaScript; with it, a
 * fetcher posts it and the page's data (and the payment it prices) follow.
 */
export function AddressSection({
  current,
  contactEmail,
  reminderConsent,
  isGuest,
  saved,
  actionData,
  redirectedError,
}: AddressSectionProps) {
  const fetcher = useFetcher<AddressActionData>();
  const answer = fetcher.data ?? actionData;
  const failed = answer && !answer.ok ? answer : null;
  const isSaving = fetcher.state !== "idle";
  const otherSaved = saved.filter(
    (entry) => !current || addressLines(entry.address).join("|") !== addressLines(current).join("|"),
  );

  return (
    <div className="address">
      {current ? (
        <div className="address__current">
          <p className="address__caption">Delivering to:</p>
          <address className="payment__address" data-testid="delivery-address">
            {addressLines(current).map((line, index) => (
              <span key={index}>{line}</span>
            ))}
            {isGuest && contactEmail ? <span>Receipt to {contactEmail}</span> : null}
          </address>
        </div>
      ) : null}

      {otherSaved.length > 0 ? (
        <fetcher.Form method="post" className="address__saved">
          <fieldset>
            <legend>Your addresses</legend>
            {otherSaved.map((entry) => (
              <label key={entry.id} className="address__choice">
                <input type="radio" name="savedAddressId" value={entry.id} required />
                <span>{addressLines(entry.address).join(", ")}</span>
              </label>
            ))}
          </fieldset>
          <button type="submit" name="intent" value="choose" className="button button--small" disabled={isSaving}>
            Use the chosen address
          </button>
        </fetcher.Form>
      ) : null}

      <details className="address__details" open={!current || Boolean(failed) || Boolean(redirectedError)}>
        <summary>{current ? "Deliver to another address" : "Add a delivery address"}</summary>
        <AddressFields
          key={current ? addressLines(current).join("|") : "new"}
          fetcher={fetcher}
          failed={failed}
          redirectedError={redirectedError}
          initial={current}
          initialEmail={contactEmail}
          initialConsent={reminderConsent}
          isGuest={isGuest}
          isSaving={isSaving}
        />
      </details>
    </div>
  );
}

function AddressFields({
  fetcher,
  failed,
  redirectedError,
  initial,
  initialEmail,
  initialConsent,
  isGuest,
  isSaving,
}: {
  fetcher: ReturnType<typeof useFetcher<AddressActionData>>;
  failed: Extract<AddressActionData, { ok: false }> | null;
  redirectedError: string | null;
  initial: DeliveryAddress | null;
  initialEmail: string | null;
  initialConsent: boolean;
  isGuest: boolean;
  isSaving: boolean;
}) {
  const values = failed?.values ?? {};
  const valueOf = (field: AddressField, fallback: string | null | undefined) => values[field] ?? fallback ?? "";
  const [country, setCountry] = useState(valueOf("country", initial?.country ?? "US"));
  // A country chosen while the page was starting is the form's (its state fields follow it); the other fields are
  // the browser's own and keep what was typed.
  useEarlyInput("address", (early) => {
    const chosen = early.get("country");
    if (chosen) setCountry(chosen);
  });
  // One object per answer, listed in the form's order: the summary takes focus when it changes.
  const errors: AddressErrors = useMemo(() => {
    const answered: AddressErrors = failed?.errors ?? (redirectedError ? { form: redirectedError } : {});
    return Object.fromEntries(
      (["form", ...ADDRESS_FIELD_ORDER] as const)
        .filter((name) => answered[name])
        .map((name) => [name, answered[name]]),
    );
  }, [failed, redirectedError]);

  const field = (name: AddressField) => ({
    id: `address-${name}`,
    name,
    ...invalidFieldProps(`address-${name}`, errors[name]),
  });
  const errorOf = (name: AddressField) => (
    <FieldError fieldId={`address-${name}`} message={errors[name]} className="address__error" />
  );

  return (
    // noValidate: the shop's own rules and sentences apply, the same with or without JavaScript.
    <fetcher.Form method="post" className="address__form" noValidate data-early="address">
      <input type="hidden" name="intent" value="address" />
      <ErrorSummary
        errors={errors}
        fieldIds={Object.fromEntries(ADDRESS_FIELD_ORDER.map((name) => [name, `address-${name}`]))}
        labels={Object.fromEntries(ADDRESS_FIELD_ORDER.map((name) => [name, labelOf(name, country)]))}
        title="Please check the delivery address"
        headingLevel={3}
        className="address__summary"
      />
      <label htmlFor="address-name">Full name</label>
      <input
        {...field("name")}
        autoComplete="shipping name"
        maxLength={ADDRESS_LIMITS.name}
        defaultValue={valueOf("name", initial?.name)}
      />
      {errorOf("name")}
      <label htmlFor="address-line1">Address line 1</label>
      <input
        {...field("line1")}
        autoComplete="shipping address-line1"
        maxLength={ADDRESS_LIMITS.line}
        defaultValue={valueOf("line1", initial?.line1)}
      />
      {errorOf("line1")}
      <label htmlFor="address-line2">Address line 2 (optional)</label>
      <input
        {...field("line2")}
        autoComplete="shipping address-line2"
        maxLength={ADDRESS_LIMITS.line}
        defaultValue={valueOf("line2", initial?.line2)}
      />
      {errorOf("line2")}
      <label htmlFor="address-city">City</label>
      <input
        {...field("city")}
        autoComplete="shipping address-level2"
        maxLength={ADDRESS_LIMITS.city}
        defaultValue={valueOf("city", initial?.city)}
      />
      {errorOf("city")}
      <label htmlFor="address-region">{labelOf("region", country)}</label>
      {country === "US" ? (
        <select
          {...field("region")}
          key="state"
          autoComplete="shipping address-level1"
          defaultValue={valueOf("region", initial?.country === "US" ? initial.region : "")}
        >
          <option value="">Choose a state</option>
          {US_STATES.map(([code, name]) => (
            <option key={code} value={code}>
              {name}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...field("region")}
          key="region"
          autoComplete="shipping address-level1"
          maxLength={ADDRESS_LIMITS.region}
          defaultValue={valueOf("region", initial?.country === "US" ? "" : initial?.region)}
        />
      )}
      {errorOf("region")}
      <label htmlFor="address-postalCode">{labelOf("postalCode", country)}</label>
      <input
        {...field("postalCode")}
        autoComplete="shipping postal-code"
        maxLength={ADDRESS_LIMITS.postalCode}
        defaultValue={valueOf("postalCode", initial?.postalCode)}
      />
      {errorOf("postalCode")}
      <label htmlFor="address-country">Country</label>
      <select
        {...field("country")}
        autoComplete="shipping country"
        value={country}
        onChange={(event) => setCountry(event.target.value)}
      >
        {COUNTRIES.map(({ code, name }) => (
          <option key={code} value={code}>
            {name}
          </option>
        ))}
      </select>
      {errorOf("country")}
      {isGuest ? (
        <>
          <label htmlFor="address-email">E-mail for your receipt</label>
          <input
            {...field("email")}
            type="email"
            inputMode="email"
            autoComplete="email"
            maxLength={ADDRESS_LIMITS.email}
            defaultValue={valueOf("email", initialEmail)}
          />
          {errorOf("email")}
        </>
      ) : null}
      <label className="consent">
        <input
          type="checkbox"
          name="basketReminders"
          defaultChecked={failed ? values.basketReminders === "on" : initialConsent}
        />
        {BASKET_REMINDERS_LABEL}
      </label>
      <button type="submit" className="button address__save" disabled={isSaving}>
        {isSaving ? "Saving" : "Deliver to this address"}
      </button>
    </fetcher.Form>
  );
}
