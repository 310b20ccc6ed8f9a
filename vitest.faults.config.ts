import { defineConfig } from "vitest/config";
import base from "./vitest.config";

// The slow fault stories run by `npm run test:faults` (not by `npm test`): races over two instances on PostgreSQL.
export default defineConfig({ test: { ...base.test, include: ["server/**/*.faults.test.ts"], exclude: ["**/node_modules/**"] } });
