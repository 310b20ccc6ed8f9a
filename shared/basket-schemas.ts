import { z } from "zod";
import type { BasketAction } from "./basket";
import { hasControlCharacter, returnToSchema } from "./local-path";

const productId = z
  .string({ error: "productId must be a string" })
  .trim()
  .min(1, "productId is required")
  .max(64, "productId is too long")
  // PostgreSQL cannot hold NUL in text, and no catalogue id has a control character.
  .refine((id) => !hasControlCharacter(id), "productId must not contain control characters");

/** Every basket request body, one strict shape per action: unknown fields are refused. */
export const basketRequestSchemas = {
  add: z.strictObject({ productId, returnTo: returnToSchema }),
  remove: z.strictObject({ productId, returnTo: returnToSchema }),
  empty: z.strictObject({ returnTo: returnToSchema }),
} as const satisfies Record<BasketAction, z.ZodType>;

