// After `react-router build`: writes a brotli (.br) and gzip (.gz) copy beside every text asset of the client
// build, once, at the highest levels, so the server sends compressed bytes without compressing per request.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const root = new URL("../build/client/", import.meta.url).pathname;
const compressible = /\.(js|css|svg|html|txt|json|webmanifest)$/;

function* files(directory) {
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

// The route manifests are served by the server, one for operators and one without the console for everybody else
// (server/http/admin-guard.ts): the build's own file, which names the console's routes, is not published.
for (const path of files(root)) {
  if (/\/assets\/manifest-[^/]+\.js$/.test(path)) rmSync(path);
}

let count = 0;
for (const path of files(root)) {
  if (!compressible.test(path)) continue;
  const source = readFileSync(path);
  if (source.length < 1024) continue;
  writeFileSync(`${path}.br`, brotliCompressSync(source, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(`${path}.gz`, gzipSync(source, { level: 9 }));
  count++;
}
console.log(`precompressed ${count} assets (brotli and gzip)`);
