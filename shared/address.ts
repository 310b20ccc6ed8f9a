// The delivery address as the shop keeps, shows and sends it, each country's rules and the US states, without zod so
// the payment page's components can use it.

/**
 * The delivery address as the shop keeps, shows and sends it, without zod (the payment page's components use this
 * module; the schemas are in address-schemas.ts). Lengths are what a label can print.
 */
export const ADDRESS_LIMITS = { name: 100, line: 100, city: 100, region: 100, postalCode: 12, email: 254 } as const;

/** ISO 3166-1 alpha-2 codes, United States first, then by name. */
export const COUNTRIES = [
  { code: "US", name: "United States" },
  { code: "AU", name: "Australia" },
  { code: "AT", name: "Austria" },
  { code: "BE", name: "Belgium" },
  { code: "CA", name: "Canada" },
  { code: "DK", name: "Denmark" },
  { code: "FR", name: "France" },
  { code: "DE", name: "Germany" },
  { code: "IE", name: "Ireland" },
  { code: "IT", name: "Italy" },
  { code: "JP", name: "Japan" },
  { code: "MX", name: "Mexico" },
  { code: "NL", name: "Netherlands" },
  { code: "NZ", name: "New Zealand" },
  { code: "NO", name: "Norway" },
  { code: "ES", name: "Spain" },
  { code: "SE", name: "Sweden" },
  { code: "CH", name: "Switzerland" },
  { code: "GB", name: "United Kingdom" },
] as const;

export type CountryCode = (typeof COUNTRIES)[number]["code"];

export const US_STATES = [
  ["AL", "Alabama"],
  ["AK", "Alaska"],
  ["AZ", "Arizona"],
  ["AR", "Arkansas"],
  ["CA", "California"],
  ["CO", "Colorado"],
  ["CT", "Connecticut"],
  ["DE", "Delaware"],
  ["DC", "District of Columbia"],
  ["FL", "Florida"],
  ["GA", "Georgia"],
  ["HI", "Hawaii"],
  ["ID", "Idaho"],
  ["IL", "Illinois"],
  ["IN", "Indiana"],
  ["IA", "Iowa"],
  ["KS", "Kansas"],
  ["KY", "Kentucky"],
  ["LA", "Louisiana"],
  ["ME", "Maine"],
  ["MD", "Maryland"],
  ["MA", "Massachusetts"],
  ["MI", "Michigan"],
  ["MN", "Minnesota"],
  ["MS", "Mississippi"],
  ["MO", "Missouri"],
  ["MT", "Montana"],
  ["NE", "Nebraska"],
  ["NV", "Nevada"],
  ["NH", "New Hampshire"],
  ["NJ", "New Jersey"],
  ["NM", "New Mexico"],
  ["NY", "New York"],
  ["NC", "North Carolina"],
  ["ND", "North Dakota"],
  ["OH", "Ohio"],
  ["OK", "Oklahoma"],
  ["OR", "Oregon"],
  ["PA", "Pennsylvania"],
  ["RI", "Rhode Island"],
  ["SC", "South Carolina"],
  ["SD", "South Dakota"],
  ["TN", "Tennessee"],
  ["TX", "Texas"],
  ["UT", "Utah"],
  ["VT", "Vermont"],
  ["VA", "Virginia"],
  ["WA", "Washington"],
  ["WV", "West Virginia"],
  ["WI", "Wisconsin"],
  ["WY", "Wyoming"],
  ["PR", "Puerto Rico"],
] as const;

/** A delivery address as the shop keeps it and sends it to the processor (Stripe's `shipping`). */
export interface DeliveryAddress {
  name: string;
  line1: string;
  line2: string | null;
  city: string;
  /** A US state's two-letter code; elsewhere the region as typed, or null. */
  region: string | null;
  postalCode: string;
  country: CountryCode;
}

/** The form's field names, in the order the form shows them (the error summary lists them in that order). */
export const ADDRESS_FIELD_ORDER = [
  "name",
  "line1",
  "line2",
  "city",
  "region",
  "postalCode",
  "country",
  "email",
] as const;
export type AddressField = (typeof ADDRESS_FIELD_ORDER)[number];

export function countryName(code: string): string {
  return COUNTRIES.find((country) => country.code === code)?.name ?? code;
}

/** The lines a label prints, e.g. ["Ada Lovelace", "1 Main St", "Apt 2", "Los Angeles, CA 90001", "United States"]. */
export function addressLines(address: DeliveryAddress): string[] {
  const place =
    address.country === "US"
      ? `${address.city}, ${address.region ?? ""} ${address.postalCode}`
      : [address.postalCode, address.city, address.region].filter(Boolean).join(" ");
  return [
    address.name,
    address.line1,
    address.line2,
    place.replace(/\s+/g, " ").trim(),
    countryName(address.country),
  ].filter((line): line is string => Boolean(line));
}

/** Stripe's `shipping` hash (docs.stripe.com/api/payment_intents/object#payment_intent_object-shipping). */
export function toStripeShipping(address: DeliveryAddress) {
  return {
    name: address.name,
    address: {
      line1: address.line1,
      line2: address.line2 ?? "",
      city: address.city,
      state: address.region ?? "",
      postal_code: address.postalCode,
      country: address.country,
    },
  };
}

/** The query parameter a form post without JavaScript comes back to /payment with when POST /checkout/address refused it. */
export const ADDRESS_ERROR_PARAM = "addressError";

/** Errors by field, each a sentence for the shopper. */
export type AddressErrors = Partial<Record<AddressField | "form", string>>;
