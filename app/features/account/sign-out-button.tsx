// "Sign Out" as a form posting to /logout: without JavaScript the server redirects back, with it the page stays and its
// data reloads.

import { useState, type FormEvent, type ReactNode } from "react";
import { useLocation, useRevalidator } from "react-router";

/**
 * "Sign Out": a form posting to /logout, so it works without JavaScript (the server redirects back here). With
 * JavaScript the page stays put and its data is reloaded: greeting back to Guest, an empty guest basket.
 */
export function SignOutButton({ className, children }: { className: string; children: ReactNode }) {
  const location = useLocation();
  const { revalidate } = useRevalidator();
  const [isSigningOut, setSigningOut] = useState(false);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setSigningOut(true);
    try {
      const response = await fetch("/logout", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({}),
      });
      if (!response.ok) throw new Error(`sign-out answered ${response.status}`);
      await revalidate();
    } catch {
      // Fall back to the plain form post, which reports its own outcome.
      form.submit();
    } finally {
      setSigningOut(false);
    }
  };
  return (
    <form method="post" action="/logout" onSubmit={onSubmit} className="sign-out-form">
      <input type="hidden" name="returnTo" value={location.pathname + location.search} />
      <button type="submit" className={className} disabled={isSigningOut}>
        {children}
      </button>
    </form>
  );
}
