import { Hono } from "hono";
import { sql } from "kysely";
import type { AppEnv } from "./app";

/** GET /healthz: 200 once the server and its database answer, 503 otherwise (for load balancers). */
export const healthRoutes = new Hono<AppEnv>().get("/healthz", async (c) => {
  const { database } = c.get("services");
  try {
    await sql`select 1`.execute(database.db);
    return c.json({ status: "ok", database: database.kind }, 200, { "Cache-Control": "no-store" });
  } catch {
    return c.json({ status: "unavailable", database: database.kind }, 503, { "Cache-Control": "no-store" });
  }
});
