import { readFileSync } from "node:fs";
import { gunzipSync, inflateSync, zstdDecompressSync } from "node:zlib";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { compressResponses, type CompressionVariables } from "./compress";
import { jsonResponse } from "./response-bytes";

const page = `<!doctype html><html><body>${"<p>Echo Dot (3rd Gen) - Smart speaker with Alexa</p>".repeat(100)}</body></html>`;

function app() {
  return new Hono()
    .use(compressResponses())
    .get("/page", (c) => c.html(page))
    .get("/small", (c) => c.json({ ok: true }))
    .get("/answer", (c) => jsonResponse(c, { ok: true }, 200))
    .get("/basket", (c) =>
      jsonResponse(c, { lines: Array.from({ length: 100 }, (_, i) => ({ title: `Book ${i}` })) }, 200),
    )
    .get("/picture", (c) => c.body(new Uint8Array(4096), 200, { "Content-Type": "image/webp" }))
    .get("/no-transform", (c) => c.html(page, 200, { "Cache-Control": "no-transform" }))
    .get(
      "/stream",
      () =>
        new Response(new Blob([page]).stream(), {
          headers: { "Content-Type": "text/html; charset=utf-8", ETag: '"v1"' },
        }),
    );
}

const get = (path: string, acceptEncoding?: string, method = "GET") =>
  app().request(`http://shop.test${path}`, {
    method,
    headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {},
  });

describe("compressResponses", () => {
  it("compresses a page with zstd for a browser that names it, with the compressed length, and it decodes to the same page", async () => {
    const response = await get("/page", "gzip, deflate, br, zstd");
    expect(response.headers.get("content-encoding")).toBe("zstd");
    expect(response.headers.get("vary")).toBe("Accept-Encoding");
    const body = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get("content-length"))).toBe(body.byteLength);
    expect(body.byteLength).toBeLessThan(page.length / 10);
    expect(zstdDecompressSync(body).toString()).toBe(page);
  });

  it("gzips a page for a client without zstd, with the compressed length, and it decodes to the same page", async () => {
    const response = await get("/page", "gzip, deflate, br");
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(response.headers.get("vary")).toBe("Accept-Encoding");
    const body = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get("content-length"))).toBe(body.byteLength);
    expect(body.byteLength).toBeLessThan(page.length / 10);
    expect(gunzipSync(body).toString()).toBe(page);
    expect(response.headers.get("content-type")).toBe("text/html; charset=UTF-8");
  });

  it("honours the client's weights: deflate when it prefers it, nothing when gzip is refused and nothing else offered", async () => {
    const deflated = await get("/page", "gzip;q=0.5, deflate");
    expect(deflated.headers.get("content-encoding")).toBe("deflate");
    expect(inflateSync(Buffer.from(await deflated.arrayBuffer())).toString()).toBe(page);

    const refused = await get("/page", "gzip;q=0, br");
    expect(refused.headers.get("content-encoding")).toBeNull();
    expect(await refused.text()).toBe(page);

    const any = await get("/page", "*");
    expect(any.headers.get("content-encoding")).toBe("gzip");

    const gzipFirst = await get("/page", "zstd;q=0.5, gzip");
    expect(gzipFirst.headers.get("content-encoding")).toBe("gzip");
  });

  it("sends as they are: no Accept-Encoding, small bodies, pictures, HEAD, and answers marked no-transform", async () => {
    expect((await get("/page")).headers.get("content-encoding")).toBeNull();
    expect(await (await get("/page")).text()).toBe(page);
    const small = await get("/small", "gzip");
    expect(small.headers.get("content-encoding")).toBeNull();
    expect(await small.json()).toEqual({ ok: true });
    expect((await get("/picture", "gzip")).headers.get("content-encoding")).toBeNull();
    expect((await get("/page", "gzip", "HEAD")).headers.get("content-encoding")).toBeNull();
    expect((await get("/no-transform", "gzip")).headers.get("content-encoding")).toBeNull();
  });

  it("passes a small JSON answer by its stated length, and compresses a large one to the same JSON", async () => {
    const small = await get("/answer", "gzip, deflate, br, zstd");
    expect(small.headers.get("content-encoding")).toBeNull();
    expect(small.headers.get("content-type")).toBe("application/json");
    expect(small.headers.get("content-length")).toBe(String('{"ok":true}'.length));
    expect(await small.json()).toEqual({ ok: true });
    const large = await get("/basket", "gzip, deflate, br, zstd");
    expect(large.headers.get("content-encoding")).toBe("zstd");
    const body = Buffer.from(await large.arrayBuffer());
    expect(Number(large.headers.get("content-length"))).toBe(body.byteLength);
    expect(JSON.parse(zstdDecompressSync(body).toString())).toMatchObject({ lines: { length: 100 } });
  });

  it("compresses a page kept for every guest harder than one shopper's: fewer bytes, the same page", async () => {
    // The shop's own stylesheet as the page: text as varied as a real page's, where zstd's levels differ.
    const styled = `<!doctype html><html><head><style>${readFileSync("app/styles/app.css", "utf8")}</style></head></html>`;
    const sizes = { one: 0, many: 0 };
    for (const compressFor of ["one", "many"] as const) {
      const kept = new Hono<{ Variables: CompressionVariables }>()
        .use(async (c, next) => {
          if (compressFor === "many") c.set("compressFor", "many");
          await next();
        })
        .use(compressResponses())
        .get("/page", (c) => c.html(styled));
      const response = await kept.request("http://shop.test/page", { headers: { "accept-encoding": "zstd" } });
      const body = Buffer.from(await response.arrayBuffer());
      expect(zstdDecompressSync(body).toString()).toBe(styled);
      sizes[compressFor] = body.byteLength;
    }
    expect(sizes.many).toBeLessThan(sizes.one * 0.95);
  });

  it("compresses a streamed body whole, and weakens a strong ETag (the bytes differ from the original's)", async () => {
    const response = await get("/stream", "gzip");
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(response.headers.get("etag")).toBe('W/"v1"');
    expect(gunzipSync(Buffer.from(await response.arrayBuffer())).toString()).toBe(page);
  });
});
