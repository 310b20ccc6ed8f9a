// Signing in as one flow: the password, then (for an account that has it) the second step, ending in a session for the
// browser.

import type { Credentials } from "#shared/account";
import { AppError } from "#shared/errors";
import type { AddressService } from "#server/addresses/address-service";
import type { BasketService } from "#server/basket/basket-service";
import type { CheckoutService } from "#server/checkout/checkout-service";
import type { OrderService } from "#server/orders/order-service";
import type { Session, SessionService, SessionUser } from "#server/sessions/session-service";
import type { TwoStepAnswer, TwoStepService } from "#server/two-step/two-step-service";
import type { AccountService } from "./account-service";

/** Signed in (a new session and its token), or the password was right and the account's second step is asked for. */
export type SignInOutcome = { session: Session; token: string } | { twoStepChallenge: string };

/**
 * Signing in and out, across the accounts, sessions and basket modules. Sign-in always starts a new session
 * (a new id and token: a session fixed by an attacker before sign-in is worthless after it), moves the guest
 * basket into the account's and the guest's orders, payments and delivery address onto the account, and ends the old session.
 * An account with two-step verification on gets no session from its password alone: a challenge waits for its code.
 */
export function createSignInFlow(
  accounts: AccountService,
  sessions: SessionService,
  basket: BasketService,
  orders: OrderService,
  checkout: Pick<CheckoutService, "adoptGuestPayments">,
  addresses: AddressService,
  twoStep: Pick<TwoStepService, "isOn" | "startChallenge" | "completeChallenge">,
) {
  async function startAccountSession(user: SessionUser, current: Session | null) {
    const next = await sessions.startSession(user);
    if (current) {
      if (!current.user) {
        await basket.adoptGuestBasket(current.id, user.id);
        await orders.adoptGuestOrders(current.id, user.id);
        await checkout.adoptGuestPayments(current.id, user.id);
        await addresses.adoptGuestAddress(current.id, user.id);
      }
      await sessions.endSession(current.id);
    }
    return next;
  }

  async function beginSignIn(
    credentials: Credentials,
    { ip, current }: { ip: string; current: Session | null },
  ): Promise<SignInOutcome> {
    if (credentials.intent === "register")
      return startAccountSession(await accounts.register(credentials.email, credentials.password, ip), current);
    const user = await accounts.verifyCredentials(credentials.email, credentials.password, ip);
    if (await twoStep.isOn(user.id)) return { twoStepChallenge: await twoStep.startChallenge(user.id) };
    return startAccountSession(user, current);
  }

  return {
    /** Signs in a shopper whose identity was proven another way (a password reset link): a new session, the guest's basket adopted. */
    startAccountSession,

    /** Whether signing in to this account asks for a second step after the password. */
    isTwoStepOn: (userId: string) => twoStep.isOn(userId),

    /**
     * "Sign In" or "Create your account": either way the shopper ends up signed in, or gets the reason why not. An
     * account with two-step verification on is refused here (its password alone opens nothing): the sign-in page
     * uses beginSignIn, which asks for the code.
     */
    async signIn(credentials: Credentials, { ip, current }: { ip: string; current: Session | null }) {
      const outcome = await beginSignIn(credentials, { ip, current });
      if ("twoStepChallenge" in outcome)
        throw new AppError("WRONG_CREDENTIALS", "This account signs in with a code as well: use the sign-in page.");
      return outcome;
    },

    /** The sign-in page's "Sign In" and "Create your account": signed in, or the password was right and a code is asked for. */
    beginSignIn,

    /** "Enter the 6-digit code" (or a recovery code) after the password: the session the password alone did not give. */
    async completeTwoStep(challenge: string, answer: TwoStepAnswer, { current }: { current: Session | null }) {
      return startAccountSession(await twoStep.completeChallenge(challenge, answer), current);
    },

    /** Deletes the session on the server: the old cookie names nothing any more. The account keeps its basket. */
    async signOut(current: Session | null): Promise<void> {
      if (current) await sessions.endSession(current.id);
    },
  };
}

export type SignInFlow = ReturnType<typeof createSignInFlow>;
