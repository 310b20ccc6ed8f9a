// `npm run processor`: the built-in test processor as its own process (packages/stripe-test-processor/src/main.ts),
// after the Node version check that TypeScript sources need (they run by Node 24's type stripping).
import { requireNode24 } from "./node-24.js";

requireNode24("npm run processor");
await import("../packages/stripe-test-processor/src/main.ts");
