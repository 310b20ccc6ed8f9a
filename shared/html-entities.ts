// Reading back what React escaped: the entities of rendered markup decoded, for the e-mails' plain-text part and the
// server's kept page parts alike.

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'", nbsp: " " };

/**
 * Text or an attribute value from rendered markup with its entities decoded, in one pass (so "&amp;quot;" stays
 * "&quot;"): the named ones React and the e-mail templates write (a no-break space read as a plain one, as text
 * wants it) and any numeric one; an unknown name is left as it is.
 */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (match, name: string) => {
    const known = ENTITIES[name.toLowerCase()];
    if (known) return known;
    if (name.startsWith("#x") || name.startsWith("#X")) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    return match;
  });
}
