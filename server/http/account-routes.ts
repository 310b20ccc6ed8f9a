// The account's JSON-or-form route: signing out (ending the session on the server); signing in and registering are the
// /login page's action.

import { Hono } from "hono";
import { signOutSchema } from "#shared/account";
import type { AppEnv } from "./app-env";
import { answerFormOrJson } from "./form-or-json";
import { readBody } from "./read-body";

/**
 *   POST /logout   { returnTo? }   ends an account's session on the server and clears the cookie; the shopper stays on
 *                                  the page. A guest has nothing to sign out of: their session, basket and orders stay.
 *
 * Signing in is the /login page's form action (app/routes/login.tsx): it renders its own errors.
 */
export const accountRoutes = new Hono<AppEnv>().post("/logout", (c) =>
  answerFormOrJson(c, "account-error", async () => {
    const { returnTo } = await readBody(c.req.raw, signOutSchema);
    const shopper = c.get("shopper");
    // Ending a guest's session would strand their orders, which only that session can show.
    if (shopper.user) {
      await c.get("services").signInFlow.signOut(shopper.session);
      shopper.clearSession();
    }
    return { json: { signedIn: false }, status: 200, returnTo };
  }),
);
