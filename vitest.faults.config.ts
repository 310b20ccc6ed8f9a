import { defineConfig } from "vitest/config";
import base from "./vitest.config";

// The slow fault stories run by `npm run test:faults` (not by `npm test`): races over two instances on PostgreSQL, a
// balancer, a pooler, a failover. One story at a time: each starts several processes and clusters, and two at once on
// a 2-core machine make start-up, not the story, the thing that fails.
export default defineConfig({
  test: {
    ...base.test,
    include: ["server/**/*.faults.test.ts"],
    exclude: ["**/node_modules/**"],
    fileParallelism: false,
  },
});
