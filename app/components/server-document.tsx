// What only the server knows about the document it renders (the CSP nonce, the inlined stylesheet), handed to the root
// layout.

import { createContext, useContext } from "react";

/**
 * What only the server knows about the document it renders: the response's CSP nonce and the shop's stylesheet,
 * inlined. Both are set in entry.server.tsx and absent in the browser: browsers blank nonces from script, and the
 * stylesheet is already in the page, so the client bundle never carries it.
 */
export interface ServerDocument {
  nonce: string;
  stylesheet: string;
}

const ServerDocumentContext = createContext<ServerDocument | null>(null);

export const ServerDocumentProvider = ServerDocumentContext.Provider;

export function useServerDocument(): ServerDocument | null {
  return useContext(ServerDocumentContext);
}
