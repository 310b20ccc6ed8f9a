// Constants only: this module reaches the browser bundle, so it must not pull in zod (see recovery-schemas.ts).

/** The consent to basket reminders, in the same words wherever it is asked (address form, basket, registration, account). */
export const BASKET_REMINDERS_LABEL = "E-mail me about my basket and offers";
