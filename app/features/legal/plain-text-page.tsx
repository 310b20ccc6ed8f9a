// A page of plain text the shop writes in the console (conditions, privacy, returns): paragraphs and headings only, so
// the text cannot break the page.

import type { ReactNode } from "react";
import { legalTextBlocks } from "#shared/shop-settings";

/**
 * A page of plain text the shop writes in the console: blank lines separate paragraphs, and a paragraph starting
 * with "# " is a heading. Nothing else is interpreted, so the text cannot break the page. `summary` goes above it
 * (the Returns page's window, fee and address, from the settings).
 */
export function PlainTextPage({
  title,
  text,
  description,
  shopName,
  summary,
}: {
  title: string;
  text: string;
  description: string;
  shopName: string;
  summary?: ReactNode;
}) {
  return (
    <main id="main" className="legal">
      <title>{`${title} | ${shopName}`}</title>
      <meta name="description" content={description} />
      <h1>{title}</h1>
      {summary}
      {legalTextBlocks(text).map((block, index) =>
        block.heading !== null ? (
          <section key={index}>
            <h2>{block.heading}</h2>
            {block.lines.map((line, lineIndex) => (
              <p key={lineIndex}>{line}</p>
            ))}
          </section>
        ) : (
          block.lines.map((line, lineIndex) => <p key={`${index}-${lineIndex}`}>{line}</p>)
        ),
      )}
    </main>
  );
}
