import { Hono } from "hono";
import type { AppEnv } from "./app";

/**
 * GET /pictures/{hash}.webp: the pictures operators upload, from the database, so every instance serves every
 * picture. The name is a hash of the bytes, so an answer never changes and may be cached for a year.
 */
export const pictureRoutes = new Hono<AppEnv>().get("/pictures/:name", async (c) => {
  const content = await c.get("services").pictures.readPicture(c.req.param("name"));
  if (!content) return c.notFound();
  return c.body(new Uint8Array(content), 200, {
    "Content-Type": "image/webp",
    "Cache-Control": "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
  });
});
