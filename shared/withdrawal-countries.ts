// Where the EU's right of withdrawal applies: the EU's and the EEA's countries.

/**
 * Where the EU's right of withdrawal applies: the 27 member states of the European Union and the three other states of
 * the European Economic Area (Iceland, Liechtenstein, Norway), which take over the Consumer Rights Directive
 * (2011/83/EU, Article 11a added by Directive (EU) 2023/2673). ISO 3166-1 alpha-2 codes; Greece is "GR" here (the EU
 * itself writes "EL"). Switzerland and the United Kingdom are neither. The list is the law's, not the shop's: a
 * country the shop does not ship to yet is listed all the same, so shipping there later needs no change here.
 */
export const EU_COUNTRY_CODES = [
  "AT", // Austria
  "BE", // Belgium
  "BG", // Bulgaria
  "HR", // Croatia
  "CY", // Cyprus
  "CZ", // Czechia
  "DK", // Denmark
  "EE", // Estonia
  "FI", // Finland
  "FR", // France
  "DE", // Germany
  "GR", // Greece
  "HU", // Hungary
  "IE", // Ireland
  "IT", // Italy
  "LV", // Latvia
  "LT", // Lithuania
  "LU", // Luxembourg
  "MT", // Malta
  "NL", // Netherlands
  "PL", // Poland
  "PT", // Portugal
  "RO", // Romania
  "SK", // Slovakia
  "SI", // Slovenia
  "ES", // Spain
  "SE", // Sweden
] as const;

/** The EEA's members outside the EU. */
export const EEA_ONLY_COUNTRY_CODES = ["IS", "LI", "NO"] as const;

const WITHDRAWAL_COUNTRIES: ReadonlySet<string> = new Set<string>([...EU_COUNTRY_CODES, ...EEA_ONLY_COUNTRY_CODES]);

/** Whether an order delivered to this country (ISO code, any case) carries the EU's 14-day right of withdrawal. */
export function hasRightOfWithdrawal(countryCode: string | null | undefined): boolean {
  return typeof countryCode === "string" && WITHDRAWAL_COUNTRIES.has(countryCode.toUpperCase());
}
