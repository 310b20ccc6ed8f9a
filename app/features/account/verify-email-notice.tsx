// The notice an unconfirmed account sees under the header, with "Send again".

import { Form } from "react-router";

/** The small notice an unconfirmed account sees under the header, with "Send again" (a form: works without JavaScript). */
export function VerifyEmailNotice() {
  return (
    <aside className="verify-banner" aria-label="E-mail confirmation">
      <p>Please confirm your e-mail: follow the link we sent when you registered.</p>
      <Form method="post" action="/verify-email">
        <button type="submit" className="button">
          Send again
        </button>
      </Form>
    </aside>
  );
}
