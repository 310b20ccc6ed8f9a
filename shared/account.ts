import { z } from "zod";
import { returnToSchema } from "./local-path";

/** For a new password (OWASP ASVS level 2); signing in accepts any length an older account may have. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/** The sign-in form, for both buttons: "Sign In" and "Create your account". Unknown fields are refused. */
export const credentialsSchema = z.strictObject({
  intent: z.enum(["sign-in", "register"], { error: "Choose Sign In or Create your account." }),
  email: z
    .string({ error: "Enter your e-mail address." })
    .trim()
    .min(1, "Enter your e-mail address.")
    .max(254, "That e-mail address is too long.")
    .pipe(z.email({ error: "Enter a valid e-mail address, like name@example.com." }))
    .transform((email) => email.toLowerCase()),
  password: z
    .string({ error: "Enter your password." })
    .min(1, "Enter your password.")
    .max(PASSWORD_MAX_LENGTH, `Your password must be at most ${PASSWORD_MAX_LENGTH} characters.`),
});

export type Credentials = z.infer<typeof credentialsSchema>;

/** The sign-out form: only where to come back to. */
export const signOutSchema = z.strictObject({ returnTo: returnToSchema });
