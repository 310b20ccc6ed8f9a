// The "Notify me when available" form: the variant and the address to write to.

import { z } from "zod";
import { EMAIL_MAX_LENGTH, NO_SUCH_VARIANT } from "./stock-alerts";

/** "Notify me when available" on a product page: the variant and the address to write to. Unknown fields are refused. */
export const stockAlertFormSchema = z.strictObject({
  intent: z.literal("stock-alert"),
  variantId: z.string({ error: NO_SUCH_VARIANT }).min(1, NO_SUCH_VARIANT).max(100, NO_SUCH_VARIANT),
  email: z
    .string({ error: "Enter your e-mail address." })
    .trim()
    .min(1, "Enter your e-mail address.")
    .max(EMAIL_MAX_LENGTH, `An e-mail address is at most ${EMAIL_MAX_LENGTH} characters.`)
    .pipe(z.email({ error: "Enter a valid e-mail address, like name@example.com." }))
    .transform((email) => email.toLowerCase()),
});

export type StockAlertForm = z.infer<typeof stockAlertFormSchema>;
