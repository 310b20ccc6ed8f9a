import { useEffect, useEffectEvent, useId, useRef, useState, type ChangeEvent, type KeyboardEvent } from "react";
import {
  cardFieldNames,
  detectBrand,
  formatCardNumber,
  formatCvc,
  formatExpiry,
  formatPostalCode,
  getBrandRules,
  validateCard,
  type CardBrand,
  type CardFieldName,
  type CardInput,
} from "./card-validation.ts";
import {
  describeCardField,
  emptyCardFieldState,
  isSameState,
  noInteraction,
  type CardFieldState,
  type Interaction,
} from "./card-field-state.ts";
import { reformatEdit } from "./reformat-edit.ts";

export type { CardFieldState } from "./card-field-state.ts";

interface CardFieldProps {
  /** Called on every change of a value, and whenever the state (error, completeness) changes. */
  onChange(state: CardFieldState): void;
  disabled?: boolean;
  /** The id of the page's element that shows `state.error`; the input in error points to it (aria-describedby). */
  errorId?: string;
}

interface FieldSettings {
  label: string;
  placeholder: string;
  autoComplete: string;
  modifier: string;
  format(raw: string, brand: CardBrand, isDeleting: boolean): string;
}

const fieldSettings: Record<CardFieldName, FieldSettings> = {
  number: {
    label: "Card number",
    placeholder: "1234 1234 1234 1234",
    autoComplete: "cc-number",
    modifier: "number",
    format: (raw) => formatCardNumber(raw),
  },
  expiry: {
    label: "Expiration date",
    placeholder: "MM / YY",
    autoComplete: "cc-exp",
    modifier: "expiry",
    format: (raw, _brand, isDeleting) => formatExpiry(raw, { isDeleting }),
  },
  cvc: {
    label: "CVC",
    placeholder: "CVC",
    autoComplete: "cc-csc",
    modifier: "cvc",
    format: (raw, brand) => formatCvc(raw, brand),
  },
  postalCode: {
    label: "ZIP or postal code",
    placeholder: "ZIP",
    autoComplete: "postal-code",
    modifier: "postal-code",
    format: (raw) => formatPostalCode(raw),
  },
};

interface Model {
  values: CardInput;
  interaction: Interaction;
}

const emptyModel: Model = { values: { number: "", expiry: "", cvc: "", postalCode: "" }, interaction: noInteraction };

/**
 * The shop's card entry field, imitating Stripe's single-line card Element: number, expiry, CVC and ZIP in one
 * bordered row, formatted as the shopper types, focus moving on when an input is complete, and Stripe.js's field
 * messages reported through `onChange` (the page shows them; this component only marks the input aria-invalid).
 *
 * The inputs have no `name`, so a card number never travels in a form post: the page takes `state.card` from
 * `onChange`. Submitting the surrounding form counts every input as visited, so an untouched card reports
 * "Your card number is incomplete." as Stripe does when asked to pay.
 */
export function CardField({ onChange, disabled = false, errorId }: CardFieldProps) {
  const id = useId();
  const [model, setModel] = useState<Model>(emptyModel);
  // Blur, focus and input events can follow each other before React renders (focus() inside a handler fires blur
  // and focus at once), so every handler builds on the latest model, kept here, not on the rendered one.
  const latestModel = useRef<Model>(emptyModel);
  const lastReported = useRef<CardFieldState>(emptyCardFieldState);
  const inputs = useRef<Partial<Record<CardFieldName, HTMLInputElement | null>>>({});

  function update(change: (model: Model) => Model) {
    const previous = latestModel.current;
    const next = change(previous);
    latestModel.current = next;
    setModel(next);
    const { state } = describeCardField(next.values, next.interaction);
    if (next.values !== previous.values || !isSameState(state, lastReported.current)) {
      lastReported.current = state;
      onChange(state);
    }
  }

  const markSubmitted = useEffectEvent(() => {
    update((current) => ({ ...current, interaction: { ...current.interaction, submitted: true } }));
  });

  useEffect(() => {
    const form = inputs.current.number?.form;
    if (!form) return;
    const onSubmit = () => markSubmitted();
    form.addEventListener("submit", onSubmit);
    return () => form.removeEventListener("submit", onSubmit);
  }, []);

  function handleInput(field: CardFieldName, event: ChangeEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const { values } = latestModel.current;
    const previous = values[field];
    const raw = input.value;
    const inputType = "inputType" in event.nativeEvent ? event.nativeEvent.inputType : "";
    const deletion =
      raw.length < previous.length ? (inputType === "deleteContentForward" ? "forward" : "backward") : null;
    const brand = detectBrand(values.number);
    const edited = reformatEdit({
      previous,
      raw,
      caret: input.selectionStart ?? raw.length,
      deletion,
      format: (text, isDeleting) => fieldSettings[field].format(text, brand, isDeleting),
    });
    // Write the formatted value and caret now: React then finds the input already matching its state and leaves the
    // caret where it belongs instead of at the end.
    input.value = edited.value;
    input.setSelectionRange(edited.caret, edited.caret);
    if (edited.value === previous) return;

    const wasComplete = isFieldComplete(values, field);
    const nextValues = { ...values, [field]: edited.value };
    update((current) => ({ ...current, values: nextValues }));

    // Like Stripe's field, typing the last character of a valid value moves on to the next input.
    const next = cardFieldNames[cardFieldNames.indexOf(field) + 1];
    if (
      next &&
      !wasComplete &&
      isFieldComplete(nextValues, field) &&
      edited.caret === edited.value.length &&
      deletion === null
    ) {
      inputs.current[next]?.focus();
    }
  }

  function handleKeyDown(field: CardFieldName, event: KeyboardEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const previousField = cardFieldNames[cardFieldNames.indexOf(field) - 1];
    // Backspace at the start of an input carries on into the one before, as if the row were one field.
    if (event.key === "Backspace" && previousField && input.selectionStart === 0 && input.selectionEnd === 0) {
      const previousInput = inputs.current[previousField];
      if (!previousInput) return;
      event.preventDefault();
      previousInput.focus();
      previousInput.setSelectionRange(previousInput.value.length, previousInput.value.length);
    }
  }

  const view = describeCardField(model.values, model.interaction);
  const describedField = view.fieldsInError[0];
  const rowClasses = ["card-field__row"];
  if (view.fieldsInError.length > 0) rowClasses.push("card-field__row--invalid");
  if (disabled) rowClasses.push("card-field__row--disabled");

  return (
    <div className="card-field">
      <div className={rowClasses.join(" ")} role="group" aria-label="Card details">
        <CardBrandMark brand={view.brand} />
        {cardFieldNames.map((field) => {
          const settings = fieldSettings[field];
          const inputId = `${id}-${settings.modifier}`;
          const isInError = view.fieldsInError.includes(field);
          return (
            <span key={field} className={`card-field__slot card-field__slot--${settings.modifier}`}>
              <label className="visually-hidden" htmlFor={inputId}>
                {settings.label}
              </label>
              <input
                ref={(element) => {
                  inputs.current[field] = element;
                }}
                id={inputId}
                className={`card-field__input card-field__input--${settings.modifier}`}
                type="text"
                inputMode={field === "postalCode" ? "text" : "numeric"}
                autoComplete={settings.autoComplete}
                autoCorrect="off"
                spellCheck={false}
                placeholder={settings.placeholder}
                value={model.values[field]}
                disabled={disabled}
                aria-invalid={isInError || undefined}
                aria-describedby={field === describedField ? errorId : undefined}
                onChange={(event) => handleInput(field, event)}
                onKeyDown={(event) => handleKeyDown(field, event)}
                onFocus={() =>
                  update((current) => ({ ...current, interaction: { ...current.interaction, focused: field } }))
                }
                onBlur={() =>
                  update((current) => ({
                    ...current,
                    interaction: {
                      ...current.interaction,
                      focused: current.interaction.focused === field ? null : current.interaction.focused,
                      visited: new Set(current.interaction.visited).add(field),
                    },
                  }))
                }
              />
            </span>
          );
        })}
      </div>
    </div>
  );
}

function isFieldComplete(values: CardInput, field: CardFieldName): boolean {
  return validateCard(values).fields[field].status === "complete";
}

/** The brand as Stripe's field shows it: a small card picture at the start of the row. */
function CardBrandMark({ brand }: { brand: CardBrand }) {
  const name = getBrandRules(brand).name;
  return (
    <span className="card-field__brand">
      {brand === "unknown" ? (
        <svg aria-hidden="true" focusable="false" width="30" height="20" viewBox="0 0 30 20">
          <rect x="0.5" y="0.5" width="29" height="19" rx="3" fill="#f6f9fc" stroke="#aab7c4" />
          <rect x="0.5" y="5" width="29" height="3.5" fill="#aab7c4" />
          <rect x="4" y="12" width="10" height="2.5" rx="1" fill="#cfd7df" />
        </svg>
      ) : (
        <svg role="img" aria-label={name} focusable="false" width="30" height="20" viewBox="0 0 30 20">
          {brand === "visa" ? (
            <>
              <rect x="0.5" y="0.5" width="29" height="19" rx="3" fill="#fff" stroke="#d9d9d9" />
              <text
                x="15"
                y="13.5"
                textAnchor="middle"
                fontFamily="Arial, Helvetica, sans-serif"
                fontSize="9"
                fontStyle="italic"
                fontWeight="700"
                fill="#1a1f71"
              >
                VISA
              </text>
            </>
          ) : brand === "mastercard" ? (
            <>
              <rect width="30" height="20" rx="3" fill="#252525" />
              <circle cx="12" cy="10" r="6" fill="#eb001b" />
              <circle cx="18" cy="10" r="6" fill="#f79e1b" />
              <path d="M15 4.8a6 6 0 0 1 0 10.4a6 6 0 0 1 0-10.4z" fill="#ff5f00" />
            </>
          ) : brand !== "amex" ? (
            <>
              <rect x="0.5" y="0.5" width="29" height="19" rx="3" fill="#fff" stroke="#d9d9d9" />
              <text
                x="15"
                y="13"
                textAnchor="middle"
                fontFamily="Arial, Helvetica, sans-serif"
                fontSize="6"
                fontWeight="700"
                fill="#333"
              >
                {{ discover: "DISC", diners: "DINERS", jcb: "JCB", unionpay: "UPAY" }[brand]}
              </text>
            </>
          ) : (
            <>
              <rect width="30" height="20" rx="3" fill="#016fd0" />
              <text
                x="15"
                y="13"
                textAnchor="middle"
                fontFamily="Arial, Helvetica, sans-serif"
                fontSize="7.5"
                fontWeight="700"
                fill="#fff"
              >
                AMEX
              </text>
            </>
          )}
        </svg>
      )}
    </span>
  );
}
