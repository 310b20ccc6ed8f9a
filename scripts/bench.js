// `npm run bench`: the benchmarks (bench/run.ts, see bench/README.md), after the Node version check.
import { requireNode24 } from "./node-24.js";

requireNode24("npm run bench");
await import("../bench/run.ts");
