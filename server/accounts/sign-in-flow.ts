import type { Credentials } from "#shared/account";
import type { AddressService } from "#server/addresses/address-service";
import type { BasketService } from "#server/basket/basket-service";
import type { CheckoutService } from "#server/checkout/checkout-service";
import type { OrderService } from "#server/orders/order-service";
import type { Session, SessionService, SessionUser } from "#server/sessions/session-service";
import type { AccountService } from "./account-service";

/**
 * Signing in and out, across the accounts, sessions and basket modules. Sign-in always starts a new session
 * (a new id and token: a session fixed by an attacker before sign-in is worthless after it), moves the guest
 * basket into the account's and the guest's orders, payments and delivery address onto the account, and ends the old session.
 */
export function createSignInFlow(
  accounts: AccountService,
  sessions: SessionService,
  basket: BasketService,
  orders: OrderService,
  checkout: Pick<CheckoutService, "adoptGuestPayments">,
  addresses: AddressService,
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

  return {
    /** Signs in a shopper whose identity was proven another way (a password reset link): a new session, the guest's basket adopted. */
    startAccountSession,

    /** "Sign In" or "Create your account": either way the shopper ends up signed in, or gets the reason why not. */
    async signIn(credentials: Credentials, { ip, current }: { ip: string; current: Session | null }) {
      const user =
        credentials.intent === "register"
          ? await accounts.register(credentials.email, credentials.password, ip)
          : await accounts.verifyCredentials(credentials.email, credentials.password, ip);
      return startAccountSession(user, current);
    },

    /** Deletes the session on the server: the old cookie names nothing any more. The account keeps its basket. */
    async signOut(current: Session | null): Promise<void> {
      if (current) await sessions.endSession(current.id);
    },
  };
}

export type SignInFlow = ReturnType<typeof createSignInFlow>;
