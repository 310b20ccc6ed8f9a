// `npm run images`: redraws the shop's WebP pictures from their SVG sources (scripts/rasterize-images.ts), after the
// Node version check.
import { requireNode24 } from "./node-24.js";

requireNode24("npm run images");
await import("./rasterize-images.ts");
