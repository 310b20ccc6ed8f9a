// The EU withdrawal form: which units, the name and e-mail, and the form's key.

import { z } from "zod";

/** Lines one withdrawal form may name: an order holds far fewer (the basket's own limit is lower). */
export const WITHDRAWAL_MAX_LINES = 200;

/** The one sentence for a withdrawal with nothing ticked. */
export const NOTHING_TICKED = "Tick at least one item to withdraw from.";

/**
 * "Confirm withdrawal"'s form: the key drawn when the page was shown (a second submission of it is the same
 * withdrawal) and a checkbox per line, `line-{index}`, sent as "on" when ticked. Any other field is refused.
 */
export const withdrawalFormSchema = z
  .record(
    z.string().regex(/^(key|line-\d{1,3})$/, "The request was not understood."),
    z.string().max(64, "The request was not understood."),
  )
  .refine((fields) => Object.keys(fields).length <= WITHDRAWAL_MAX_LINES + 1, "The request was not understood.")
  .transform((fields) => ({
    key: fields.key,
    lines: Object.entries(fields)
      .filter(([name, value]) => name.startsWith("line-") && value === "on")
      .map(([name]) => Number(name.slice("line-".length))),
  }))
  .pipe(
    z.strictObject({
      key: z.uuid({ error: "Reload the page and try again." }),
      lines: z.array(z.number().int().min(0)).min(1, NOTHING_TICKED),
    }),
  );

export type WithdrawalForm = z.infer<typeof withdrawalFormSchema>;
