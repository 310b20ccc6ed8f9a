// Serving the pictures operators upload, from the database by their content hash (cached a year), and redirecting a
// picture's former address.

import { Hono } from "hono";
import { currentPictureUrl } from "#shared/shop-pictures";
import type { AppEnv } from "./app-env";

/**
 * GET /pictures/{hash}.webp: the pictures operators upload, from the database, so every instance serves every
 * picture. The name is a hash of the bytes, so an answer never changes and may be cached for a year.
 *
 * The shop's own pictures are the build's files under /assets (shared/shop-pictures.ts), served with the scripts.
 * Their former addresses lead to them: /images/… (before the build named them by content) and a name an earlier
 * build gave one (an order's picture). Only the redirect is cached, for an hour: where it leads changes with a build.
 */
export const pictureRoutes = new Hono<AppEnv>()
  .get("/pictures/:name", async (c) => {
    const content = await c.get("services").pictures.readPicture(c.req.param("name"));
    if (!content) return c.notFound();
    return c.body(new Uint8Array(content), 200, {
      "Content-Type": "image/webp",
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
    });
  })
  .on("GET", ["/images/*", "/assets/*"], (c, next) => {
    const moved = currentPictureUrl(c.req.path);
    if (!moved) return next();
    c.header("Cache-Control", "public, max-age=3600");
    return c.redirect(moved, 301);
  });
