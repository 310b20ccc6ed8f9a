// The review form's schema ("Write a customer review").

import { z } from "zod";
import { REVIEW_BODY_MAX, REVIEW_HEADLINE_MAX } from "./reviews";

/** "Write a customer review": the form's fields. Unknown fields are refused. */
export const reviewFormSchema = z.strictObject({
  intent: z.literal("review"),
  rating: z
    .string({ error: "Choose a rating from 1 to 5 stars." })
    .refine((value) => /^[1-5]$/.test(value), "Choose a rating from 1 to 5 stars.")
    .transform(Number),
  headline: z
    .string({ error: "Add a headline." })
    .transform((text) => text.replace(/\s+/g, " ").trim())
    .pipe(
      z
        .string()
        .min(1, "Add a headline.")
        .max(REVIEW_HEADLINE_MAX, `A headline is at most ${REVIEW_HEADLINE_MAX} characters.`),
    ),
  body: z
    .string()
    .default("")
    .transform((text) => text.replace(/\r\n/g, "\n").trim())
    .pipe(z.string().max(REVIEW_BODY_MAX, `A written review is at most 5,000 characters.`)),
});
