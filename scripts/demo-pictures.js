// `npm run demo-pictures`: redraws the demo catalogue's pictures (scripts/draw-demo-pictures.ts), after the Node
// version check.
import { requireNode24 } from "./node-24.js";

requireNode24("npm run demo-pictures");
await import("./draw-demo-pictures.ts");
