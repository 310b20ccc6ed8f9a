// What every e-mail shares: the shop's name and logo at the top, its address and the unsubscribe line at the foot,
// headings and buttons.

import type { ReactNode } from "react";

/** The shop as its e-mails name it (its settings, read when the e-mail is written). */
export interface EmailShop {
  /** The shop's public address (PUBLIC_URL). */
  url: string;
  name: string;
  /** The logo's absolute address on the shop (PUBLIC_URL): the e-mail carries no picture of its own. */
  logo: { url: string; width: number; height: number } | null;
  /** The shop's postal address, lines apart by "\n", for the footer. */
  postalAddress: string | null;
}

/** The logo's height in an e-mail, in pixels. */
const LOGO_HEIGHT = 40;

/**
 * The frame every e-mail shares: the shop's logo or name, one column, a footer saying why it was sent and where the
 * shop is. Inline styles: mail clients drop stylesheets.
 */
export function EmailLayout({ preview, children, shop }: { preview: string; children: ReactNode; shop: EmailShop }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width" />
        <title>{preview}</title>
      </head>
      <body
        style={{
          margin: 0,
          padding: "24px 12px",
          background: "#f3f3f3",
          fontFamily: "Arial, Helvetica, sans-serif",
          color: "#0f1111",
        }}
      >
        <div style={{ maxWidth: 560, margin: "0 auto", background: "#ffffff", padding: 24, borderRadius: 8 }}>
          {shop.logo ? (
            <p style={{ margin: "0 0 16px" }}>
              <img
                src={shop.logo.url}
                alt={shop.name}
                height={LOGO_HEIGHT}
                width={Math.round((shop.logo.width * LOGO_HEIGHT) / shop.logo.height)}
                style={{ display: "block", border: 0 }}
              />
            </p>
          ) : (
            <p style={{ fontSize: 20, fontWeight: "bold", margin: "0 0 16px" }}>{shop.name}</p>
          )}
          {children}
          <hr style={{ border: 0, borderTop: "1px solid #ddd", margin: "24px 0 12px" }} />
          <p style={{ fontSize: 12, color: "#565959" }}>
            You are receiving this e-mail because of your account at <a href={shop.url}>{shop.url}</a>.
          </p>
          {shop.postalAddress ? (
            <p style={{ fontSize: 12, color: "#565959" }}>
              {shop.name}
              {shop.postalAddress.split("\n").map((line, index) => (
                <span key={index}>
                  <br />
                  {line}
                </span>
              ))}
            </p>
          ) : null}
        </div>
      </body>
    </html>
  );
}

export function EmailButton({ href, children }: { href: string; children: string }) {
  return (
    <p>
      <a
        href={href}
        style={{
          display: "inline-block",
          background: "#ffd814",
          color: "#0f1111",
          padding: "10px 18px",
          borderRadius: 8,
          textDecoration: "none",
        }}
      >
        {children}
      </a>
    </p>
  );
}

export function EmailHeading({ children }: { children: ReactNode }) {
  return <h1 style={{ fontSize: 22, margin: "0 0 12px" }}>{children}</h1>;
}
