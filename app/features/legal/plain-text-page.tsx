/**
 * A page from a plain-text file an operator edits: the first line is the title, blank lines separate paragraphs,
 * and a paragraph starting with "# " is a heading. Nothing else is interpreted, so the text cannot break the page.
 */
export function PlainTextPage({ source, description }: { source: string; description: string }) {
  const [title = "", ...rest] = source.trim().split(/\r?\n/);
  const blocks = rest
    .join("\n")
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean);
  return (
    <main id="main" className="legal">
      <title>{`${title} | Storefront`}</title>
      <meta name="description" content={description} />
      <h1>{title}</h1>
      {blocks.map((block, index) => {
        const [first = "", ...lines] = block.split("\n");
        if (first.startsWith("# ")) {
          return (
            <section key={index}>
              <h2>{first.slice(2)}</h2>
              {lines.map((line, lineIndex) => (
                <p key={lineIndex}>{line}</p>
              ))}
            </section>
          );
        }
        return block.split("\n").map((line, lineIndex) => <p key={`${index}-${lineIndex}`}>{line}</p>);
      })}
    </main>
  );
}
