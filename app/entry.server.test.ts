import { describe, expect, it } from "vitest";
import { finishPage, innerHtmlOf, withScriptsAfterFirstPaint } from "./entry.server";

const page = [
  '<html><head><link rel="modulepreload" href="/assets/entry.client-1.js" nonce="n0"/><link rel="modulepreload" href="/assets/root-2.js" nonce="n0"/></head>',
  '<body><p>Hello</p><script nonce="n0" type="module" async="">import * as route0 from "/assets/root-2.js";\nwindow.price = "$&$1";\nimport("/assets/entry.client-1.js");</script></body></html>',
].join("");

describe("scripts held back until after the first paint", () => {
  it("takes out the module preloads and holds the module script, started by a nonce'd inline script", () => {
    const html = withScriptsAfterFirstPaint(page);
    expect(html).not.toContain('<link rel="modulepreload"');
    expect(html).not.toContain('type="module" async');
    expect(html).toContain(
      '<script nonce="n0" type="text/x-deferred-module" id="deferred-module" data-preload="[&quot;/assets/entry.client-1.js&quot;,&quot;/assets/root-2.js&quot;]" data-early="[&quot;/assets/root-2.js&quot;]">import * as route0',
    );
    // The module's text is kept byte for byte (no replacement patterns such as $& are expanded).
    expect(html).toContain('window.price = "$&$1";');
    expect(html).toMatch(/<script nonce="n0">\(\(\)=>\{.*requestAnimationFrame/);
  });

  it("leaves what follows the module script (the data React Router streams in) as it was", () => {
    const data =
      '<script nonce="n0">window.data = "<link rel=\\"modulepreload\\" href=\\"/x.js\\"/>";</script>' +
      '<script nonce="n0" type="module" async="">import("/y.js");</script>';
    const html = withScriptsAfterFirstPaint(page.replace("</body>", `${data}</body>`));
    expect(html).toContain('id="deferred-module" data-preload="[&quot;/assets/entry.client-1.js&quot;');
    expect(html).toContain(`${data}</body>`);
  });

  it("runs no module early when it cannot tell which one is the entry that hydrates", () => {
    const html = withScriptsAfterFirstPaint(page.replace('import("/assets/entry.client-1.js");', "import(entry);"));
    expect(html).toContain('data-early="[]"');
  });

  it("leaves a page it does not recognise as rendered, so its scripts still load", () => {
    const unusual = page.replace('type="module" async=""', 'type="module"');
    expect(withScriptsAfterFirstPaint(unusual)).toBe(unusual);
    expect(withScriptsAfterFirstPaint("<p>no scripts</p>")).toBe("<p>no scripts</p>");
  });

  it("rewrites the page as bytes and leaves every character outside the scripts as it was", () => {
    const text = "Grüße — £12.99, 🎧 «quoted»";
    const rendered = Buffer.from(page.replace("<p>Hello</p>", `<p>${text}</p><img alt="${text}"/>`), "utf8");
    const sent = finishPage(rendered).toString("utf8");
    expect(sent).toContain(`<p>${text}</p><img alt="${text}"/>`);
    expect(sent).not.toContain('<link rel="modulepreload"');
    expect(sent).toBe(withScriptsAfterFirstPaint(rendered.toString("utf8")));
  });
});

describe("a kept part of a page", () => {
  it("is the HTML between its wrapper and the wrapper's own closing tag", () => {
    const html =
      '<main><div data-kept="details"><h1>Tea</h1><div class="form"><div><p>1</p></div></div><p>&lt;div&gt;</p></div><div>after</div></main>';
    expect(innerHtmlOf(html, '<div data-kept="details">')).toBe(
      '<h1>Tea</h1><div class="form"><div><p>1</p></div></div><p>&lt;div&gt;</p>',
    );
  });

  it("is not kept when its wrapper is missing, unclosed or twice on the page", () => {
    expect(innerHtmlOf("<main></main>", '<div data-kept="details">')).toBeUndefined();
    expect(innerHtmlOf('<div data-kept="details"><div></div>', '<div data-kept="details">')).toBeUndefined();
    expect(
      innerHtmlOf('<div data-kept="details"></div><div data-kept="details"></div>', '<div data-kept="details">'),
    ).toBeUndefined();
  });
});
