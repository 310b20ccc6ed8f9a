// The QR code of an authenticator's setup, drawn by the shop as one inline SVG path (no network, no canvas).

import { encode } from "uqr";

/**
 * A QR code drawn by the shop itself: uqr computes the matrix (no network, no canvas), and this turns its dark modules
 * into one SVG path of unit squares, which the page draws inline. Medium error correction, as authenticator apps
 * read an otpauth:// address comfortably at that level from a screen.
 */
export function qrCodePath(text: string): { size: number; path: string } {
  const { data, size } = encode(text, { ecc: "M", border: 2 });
  let path = "";
  data.forEach((row, y) => {
    row.forEach((isDark, x) => {
      if (isDark) path += `M${x} ${y}h1v1h-1z`;
    });
  });
  return { size, path };
}
