// Rendering an e-mail template: the HTML part as React renders it and a plain-text part read from the same markup, so
// the two never disagree.

import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { decodeHtmlEntities } from "#shared/html-entities";

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

/**
 * One React element, two parts: the HTML part as React renders it, and a plain-text part read from that same markup,
 * so the two never say different things (docs/decisions/013-email-outbox-and-account-life.md). The templates use a small set of elements
 * (h1, p, a, table rows, hr, br), which is all the text conversion needs to know.
 */
export function renderEmail(subject: string, element: ReactElement): RenderedEmail {
  const body = renderToStaticMarkup(element);
  return { subject, html: `<!DOCTYPE html>${body}`, text: htmlToText(body) };
}

/** Plain text from the templates' markup: paragraphs apart, table cells side by side, a link as "text: address". */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<(head|style|title)[^>]*>[\s\S]*?<\/\1>/gi, "")
    .replace(/<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_match, href: string, label: string) => {
      const words = label.replace(/<[^>]+>/g, "").trim();
      const address = decodeHtmlEntities(href);
      return words && decodeHtmlEntities(words) !== address ? `${words}: ${href}` : href;
    })
    .replace(/<img\s[^>]*alt="([^"]*)"[^>]*>/gi, "$1")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<hr[^>]*>/gi, "\n\n----\n\n")
    .replace(/<\/(td|th)>/gi, "  ")
    .replace(/<\/(tr|li)>/gi, "\n")
    .replace(/<\/(p|h1|h2|h3|table|div)>/gi, "\n\n")
    .replace(/<[^>]+>/g, "");
  return decodeHtmlEntities(text)
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
    .concat("\n");
}
