// Whether this page's JavaScript runs yet, so a component keeps its plain-form controls until it does.

import { useSyncExternalStore } from "react";

/** False on the server and until this page's JavaScript runs: a page without it keeps its plain-form controls. */
export function useIsEnhanced(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}

function subscribeToNothing(): () => void {
  return () => undefined;
}
