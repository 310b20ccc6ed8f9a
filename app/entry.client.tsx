// The browser's entry: hydrates the server-rendered page a task after React DOM's set-up, so the first paint is not
// held up.

import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { HydratedRouter } from "react-router/dom";

// React Router's own client entry, except that hydration starts a task later. React DOM is CommonJS, so its
// set-up runs when this module first imports it; with hydrateRoot in the same task the two were one long
// main-thread task on a phone (docs/decisions/008).
setTimeout(() => {
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <HydratedRouter />
      </StrictMode>,
    );
  });
}, 0);
