import type { ReactNode } from "react";

/** The frame every e-mail shares: the shop's name, one column, a footer saying why it was sent. Inline styles: mail clients drop stylesheets. */
export function EmailLayout({ preview, children, shopUrl }: { preview: string; children: ReactNode; shopUrl: string }) {
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
          <p style={{ fontSize: 20, fontWeight: "bold", margin: "0 0 16px" }}>Storefront</p>
          {children}
          <hr style={{ border: 0, borderTop: "1px solid #ddd", margin: "24px 0 12px" }} />
          <p style={{ fontSize: 12, color: "#565959" }}>
            You are receiving this e-mail because of your account at <a href={shopUrl}>{shopUrl}</a>.
          </p>
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
