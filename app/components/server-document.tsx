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
  /** The parts of pages kept as HTML (kept-html.tsx); absent where nothing is kept. */
  keptHtml?: KeptHtmlKeeper;
}

/** A part of a page kept as HTML (kept-html.tsx), with the pictures React preloaded for it in the page's head. */
export interface KeptPart {
  html: string;
  images: { src: string; srcSet?: string; sizes?: string; fetchPriority?: "high" | "auto" }[];
}

/** The server's side of KeptHtml (kept-html.tsx), for one response. */
export interface KeptHtmlKeeper {
  /** The kept part `name` drawn from `source` at `address`, or undefined (the part then renders, and is kept). */
  find(source: object, name: string, address: string): KeptPart | undefined;
}

const ServerDocumentContext = createContext<ServerDocument | null>(null);

export const ServerDocumentProvider = ServerDocumentContext.Provider;

export function useServerDocument(): ServerDocument | null {
  return useContext(ServerDocumentContext);
}
