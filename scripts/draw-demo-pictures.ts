// `node scripts/draw-demo-pictures.ts`: draws the demo catalogue's pictures (images/demo/{id}.webp, 400 × 400) from
// shapes in SVG, rendered to WebP by sharp. No network, no stock photos: what is committed is what this draws.
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import sharp from "sharp";
import {
  colourPictureId,
  DEMO_COLOURS,
  DEMO_PRODUCTS,
  demoColours,
  type DemoShape,
} from "../server/imports/demo-catalogue-data.ts";

const OUT = new URL("../images/demo/", import.meta.url);
/** Each picture stays under this (the issue's budget for a demo picture). */
const MAX_BYTES = 40_000;

const shapes: Record<DemoShape, (colour: string) => string> = {
  book: (c) =>
    `<rect x="120" y="70" width="160" height="230" rx="8" fill="${c}"/><rect x="120" y="70" width="22" height="230" fill="#000" opacity=".25"/><rect x="160" y="120" width="100" height="14" rx="4" fill="#fff" opacity=".85"/><rect x="160" y="146" width="70" height="10" rx="4" fill="#fff" opacity=".6"/><rect x="130" y="300" width="150" height="14" rx="3" fill="#eee"/>`,
  pot: (c) =>
    `<ellipse cx="200" cy="170" rx="120" ry="22" fill="#000" opacity=".2"/><path d="M90 170 h220 v90 a40 40 0 0 1 -40 40 h-140 a40 40 0 0 1 -40 -40z" fill="${c}"/><rect x="40" y="180" width="55" height="16" rx="8" fill="${c}"/><rect x="305" y="180" width="55" height="16" rx="8" fill="${c}"/><ellipse cx="200" cy="150" rx="115" ry="18" fill="${c}" opacity=".8"/><circle cx="200" cy="128" r="12" fill="#333"/>`,
  mug: (c) =>
    `<rect x="110" y="110" width="150" height="180" rx="18" fill="${c}"/><path d="M260 150 h30 a35 35 0 0 1 0 80 h-30" fill="none" stroke="${c}" stroke-width="20"/><ellipse cx="185" cy="112" rx="75" ry="12" fill="#000" opacity=".25"/>`,
  kettle: (c) =>
    `<path d="M120 300 l20 -150 a60 60 0 0 1 120 0 l20 150z" fill="${c}"/><path d="M280 190 q60 10 40 90" fill="none" stroke="${c}" stroke-width="18"/><path d="M125 180 l-60 -40" stroke="${c}" stroke-width="18" stroke-linecap="round"/><rect x="110" y="295" width="180" height="18" rx="6" fill="#333"/><rect x="180" y="95" width="40" height="12" rx="6" fill="#333"/>`,
  speaker: (c) =>
    `<rect x="120" y="70" width="160" height="260" rx="22" fill="${c}"/><circle cx="200" cy="250" r="48" fill="#111" opacity=".6"/><circle cx="200" cy="250" r="18" fill="#ddd" opacity=".6"/><circle cx="200" cy="135" r="26" fill="#111" opacity=".6"/>`,
  headphones: (c) =>
    `<path d="M110 230 v-40 a90 90 0 0 1 180 0 v40" fill="none" stroke="${c}" stroke-width="20"/><rect x="88" y="215" width="50" height="90" rx="18" fill="${c}"/><rect x="262" y="215" width="50" height="90" rx="18" fill="${c}"/>`,
  camera: (c) =>
    `<rect x="80" y="130" width="240" height="160" rx="18" fill="${c}"/><rect x="120" y="105" width="70" height="30" rx="6" fill="${c}"/><circle cx="200" cy="210" r="58" fill="#111"/><circle cx="200" cy="210" r="36" fill="#446"/><circle cx="188" cy="198" r="10" fill="#fff" opacity=".6"/>`,
  monitor: (c) =>
    `<rect x="50" y="80" width="300" height="185" rx="10" fill="#111"/><rect x="62" y="92" width="276" height="161" fill="${c}"/><rect x="185" y="265" width="30" height="40" fill="#333"/><rect x="135" y="302" width="130" height="14" rx="6" fill="#333"/>`,
  tablet: (c) =>
    `<rect x="110" y="60" width="180" height="280" rx="20" fill="#222"/><rect x="122" y="80" width="156" height="236" rx="4" fill="${c}"/><circle cx="200" cy="328" r="6" fill="#555"/>`,
  keyboard: (c) =>
    `<rect x="40" y="150" width="320" height="120" rx="14" fill="${c}"/>${Array.from({ length: 30 }, (_, i) => `<rect x="${56 + (i % 10) * 30}" y="${166 + Math.floor(i / 10) * 30}" width="22" height="22" rx="4" fill="#fff" opacity=".35"/>`).join("")}`,
  mouse: (c) =>
    `<rect x="140" y="90" width="120" height="210" rx="60" fill="${c}"/><line x1="200" y1="92" x2="200" y2="170" stroke="#000" stroke-opacity=".3" stroke-width="4"/><rect x="193" y="120" width="14" height="30" rx="7" fill="#222"/>`,
  lamp: (c) =>
    `<path d="M140 120 l120 0 l40 90 l-200 0z" fill="${c}"/><rect x="193" y="210" width="14" height="90" fill="#333"/><rect x="140" y="296" width="120" height="16" rx="6" fill="#333"/><circle cx="200" cy="225" r="12" fill="#ffd" opacity=".9"/>`,
};

/** `outlined`: a colour's own picture, drawn with an edge so that a white product stands out from the background. */
function drawing(shape: DemoShape, colour: string, outlined = false): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" viewBox="0 0 400 400">
  <defs><linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f7f7f7"/><stop offset="1" stop-color="#e6e6e6"/></linearGradient></defs>
  <rect width="400" height="400" fill="url(#bg)"/>
  <ellipse cx="200" cy="345" rx="150" ry="14" fill="#000" opacity=".08"/>
  ${outlined ? `<filter id="edge"><feMorphology in="SourceAlpha" operator="dilate" radius="2" result="grown"/><feFlood flood-color="#000" flood-opacity=".3"/><feComposite in2="grown" operator="in" result="rim"/><feMerge><feMergeNode in="rim"/><feMergeNode in="SourceGraphic"/></feMerge></filter><g filter="url(#edge)">${shapes[shape](colour)}</g>` : shapes[shape](colour)}
</svg>`;
}

async function draw(id: string, svg: string): Promise<void> {
  const webp = await sharp(Buffer.from(svg)).webp({ quality: 80 }).toBuffer();
  if (webp.byteLength >= MAX_BYTES) throw new Error(`${id}: ${webp.byteLength} bytes, over ${MAX_BYTES}`);
  writeFileSync(new URL(`${id}.webp`, OUT), webp);
}

mkdirSync(OUT, { recursive: true });
let drawn = 0;
for (const product of DEMO_PRODUCTS) {
  await draw(product.id, drawing(product.shape, product.colour));
  drawn++;
  for (const colour of demoColours(product)?.values ?? []) {
    const fill = DEMO_COLOURS[colour];
    if (!fill) throw new Error(`${product.id}: no drawing colour for "${colour}" in DEMO_COLOURS`);
    await draw(colourPictureId(product, colour), drawing(product.shape, fill, true));
    drawn++;
  }
}
const sizes = readdirSync(OUT).map((name) => statSync(new URL(name, OUT)).size);
console.log(`drew ${drawn} pictures into images/demo (largest ${Math.max(...sizes)} bytes)`);
