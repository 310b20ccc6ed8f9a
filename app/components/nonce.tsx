import { createContext, useContext } from "react";

/**
 * The CSP nonce of the response being rendered. Set on the server only: in the browser the value is
 * hidden from script (browsers blank it) and not needed, since the scripts have already run.
 */
const NonceContext = createContext<string | undefined>(undefined);

export const NonceProvider = NonceContext.Provider;

export function useNonce(): string | undefined {
  return useContext(NonceContext);
}
