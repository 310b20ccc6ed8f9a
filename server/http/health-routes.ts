// /healthz and /readyz: whether the process and its database answer, and whether a load balancer should send it work
// (not while draining).

import { Hono } from "hono";
import { sql } from "kysely";
import type { Services } from "#server/services";
import type { AppEnv } from "./app-env";
import { jsonResponse } from "./response-bytes";
import type { Readiness } from "./readiness";

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * GET /healthz, liveness: 200 while the process and its database answer, 503 otherwise.
 * GET /readyz, readiness for a load balancer: 200 only when the database answers, its migrations are done (the app
 * exists only after start-up applied them) and the process is not draining; 503 from the moment SIGTERM arrives.
 */
export function healthRoutes(readiness: Readiness) {
  return new Hono<AppEnv>()
    .get("/healthz", async (c) => {
      const { database } = c.get("services");
      const isUp = await databaseAnswers(c.get("services"));
      return jsonResponse(
        c,
        { status: isUp ? "ok" : "unavailable", database: database.kind },
        isUp ? 200 : 503,
        NO_STORE,
      );
    })
    .get("/readyz", async (c) => {
      if (readiness.isDraining) return jsonResponse(c, { status: "draining" }, 503, NO_STORE);
      const isUp = await databaseAnswers(c.get("services"));
      return jsonResponse(c, { status: isUp ? "ready" : "unavailable" }, isUp ? 200 : 503, NO_STORE);
    });
}

async function databaseAnswers({ database, logger }: Services): Promise<boolean> {
  try {
    await sql`select 1`.execute(database.db);
    return true;
  } catch (error) {
    logger.warn({ err: error }, "health: the database did not answer");
    return false;
  }
}
