// The basket routes' requests (add, change, remove), strict and bounded, for form posts and JSON alike.

import { z } from "zod";
import { BASKET_LINE_LIMIT, type BasketAction } from "./basket";
import { hasControlCharacter } from "./local-path";
import { returnToSchema } from "./return-to-schema";
import { isStorableText } from "./storable-text";

const productId = z
  .string({ error: "productId must be a string" })
  .trim()
  .min(1, "productId is required")
  .max(64, "productId is too long")
  // PostgreSQL cannot hold NUL in text, and no catalogue id has a control character.
  .refine((id) => !hasControlCharacter(id), "productId must not contain control characters")
  .refine(isStorableText, "productId must not contain broken characters");

/** A variant of the product (its size, its colour); absent: the product's first variant. */
const variantId = z
  .string({ error: "variantId must be a string" })
  .trim()
  .min(1, "variantId is required")
  .max(64, "variantId is too long")
  .refine((id) => !hasControlCharacter(id), "variantId must not contain control characters")
  .optional();

/** One option's chosen value (option1, option2, option3: a product page's radios), as the catalogue spells it. */
const optionValue = z
  .string({ error: "option values must be strings" })
  .max(100, "an option value is too long")
  .refine((value) => !hasControlCharacter(value), "option values must not contain control characters")
  .optional();

/** A form post sends the select's value as text ("3"); JSON sends a number. Whole numbers 1 to the line limit only. */
const quantity = z
  .union(
    [
      z.number(),
      z
        .string()
        .regex(/^\d{1,2}$/, "quantity must be a whole number")
        .transform(Number),
    ],
    { error: "quantity must be a whole number" },
  )
  .pipe(
    z
      .number()
      .int("quantity must be a whole number")
      .min(1, "quantity must be at least 1")
      .max(BASKET_LINE_LIMIT, `quantity must be at most ${BASKET_LINE_LIMIT}`),
  );

/** Every basket request body, one strict shape per action: unknown fields are refused. */
export const basketRequestSchemas = {
  // A variant by its id, or by its option values (the product page's form): one or the other.
  add: z
    .strictObject({
      productId,
      variantId,
      option1: optionValue,
      option2: optionValue,
      option3: optionValue,
      returnTo: returnToSchema,
    })
    .refine(
      (body) =>
        body.variantId === undefined ||
        [body.option1, body.option2, body.option3].every((value) => value === undefined),
      "send variantId or option values, not both",
    ),
  remove: z.strictObject({ productId, variantId, returnTo: returnToSchema }),
  quantity: z.strictObject({ productId, variantId, quantity, returnTo: returnToSchema }),
  empty: z.strictObject({ returnTo: returnToSchema }),
} as const satisfies Record<BasketAction, z.ZodType>;
