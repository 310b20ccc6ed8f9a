// The first import of every entry point that needs Node 24. On an older Node it prints one line with the remedy and
// stops, before any import that would fail with a stack trace (TypeScript sources, node:zlib's zstd, a dependency's
// newer syntax). The remedy is npm's own: `npm ci` puts the npm registry's Node 24 in node_modules/.bin, and every npm
// script runs it from there, whatever `node` the machine has.

/** Stops with one line when this Node is older than 24; `npmCommand` is how the same thing is run through npm. */
export function requireNode24(npmCommand) {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= 24) return;
  console.error(
    `Storefront needs Node.js 24 or later; this is Node.js ${process.versions.node}. ` +
      `Run \`${npmCommand}\` instead (after \`npm ci\`): npm scripts use the Node 24 that \`npm ci\` puts in node_modules/.bin.`,
  );
  process.exit(1);
}
