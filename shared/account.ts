// The account forms' schemas (sign in, register, forgot and reset password, sign out) and the password's length rules
// the page and the server share.

import { z } from "zod";
import { basketRemindersFormSchema, checkboxField } from "./recovery-schemas";
import { returnToSchema } from "./return-to-schema";
import { twoStepCodeField } from "./two-step";

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

/**
 * The sign-in page's form: the credentials, where to go once signed in (a path on this site; home if none), and the
 * consent to basket reminders (ticked, it turns the account's preference on; unticked, it changes nothing).
 */
export const signInFormSchema = credentialsSchema.extend({ returnTo: returnToSchema, basketReminders: checkboxField });

/** The sign-out form: only where to come back to. */
export const signOutSchema = z.strictObject({ returnTo: returnToSchema });

const emailField = credentialsSchema.shape.email;
const newPasswordField = z
  .string({ error: "Enter a new password." })
  .min(1, "Enter a new password.")
  .max(PASSWORD_MAX_LENGTH, `Your password must be at most ${PASSWORD_MAX_LENGTH} characters.`);
const confirmField = z
  .string({ error: "Enter the new password again." })
  .max(PASSWORD_MAX_LENGTH)
  .min(1, "Enter the new password again.");
const currentPasswordField = z
  .string({ error: "Enter your password." })
  .min(1, "Enter your password.")
  .max(PASSWORD_MAX_LENGTH);
const NOT_THE_SAME = "The two passwords are not the same. Please type the new one twice.";

/** "Forgot your password?": the address to send the link to. */
export const forgotPasswordSchema = z.strictObject({ email: emailField });

/** "Set new password" on the page a reset link opens. */
export const resetPasswordSchema = z
  .strictObject({ token: z.string().max(100), password: newPasswordField, confirmPassword: confirmField })
  .refine((form) => form.password === form.confirmPassword, { path: ["confirmPassword"], message: NOT_THE_SAME });

/** The account page's forms, told apart by the button that posted them. */
export const accountActionSchema = z.discriminatedUnion("intent", [
  z
    .strictObject({
      intent: z.literal("change-password"),
      currentPassword: currentPasswordField,
      password: newPasswordField,
      confirmPassword: confirmField,
    })
    .refine((form) => form.password === form.confirmPassword, { path: ["confirmPassword"], message: NOT_THE_SAME }),
  z.strictObject({ intent: z.literal("sign-out-everywhere") }),
  z.strictObject({ intent: z.literal("delete-account"), deletePassword: currentPasswordField }),
  z.strictObject({ intent: z.literal("resend-verification") }),
  z.strictObject({ intent: z.literal("delete-address"), addressId: z.uuid("That saved address does not exist.") }),
  z.strictObject({ intent: z.literal("two-step-begin") }),
  z.strictObject({ intent: z.literal("two-step-confirm"), code: twoStepCodeField }),
  basketRemindersFormSchema,
]);

export type AccountAction = z.infer<typeof accountActionSchema>;
