import { afterAll, beforeAll, expect, it } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

/**
 * The host a shop's links name. With PUBLIC_URL, that origin, whatever Host a request carries. Without it, the Host
 * is copied into links (the sitemap, robots.txt, canonical links), so only Hosts that cannot be an attacker's name are
 * answered: IP literals, localhost and ALLOWED_HOSTS; any other gets 421, and those files are not cached publicly.
 */
describeEachDatabase("the host in the shop's links", (getDatabase) => {
  let pages: Awaited<ReturnType<typeof createPageShop>>;
  let pagesWithPublicUrl: Awaited<ReturnType<typeof createPageShop>>;

  beforeAll(async () => {
    pages = await createPageShop(getDatabase(), { allowedHosts: ["shop.example"] });
    pagesWithPublicUrl = await createPageShop(getDatabase(), { publicUrl: new URL("https://shop.example/") });
  }, 120_000);
  afterAll(async () => {
    await pages.close();
    await pagesWithPublicUrl.close();
  });

  const get = (
    shop: { app: { request: (url: string, init?: RequestInit) => Response | Promise<Response> } },
    path: string,
    host: string,
  ) => shop.app.request(`http://${host}${path}`, { headers: { host, accept: "text/html" } });

  it("without PUBLIC_URL answers IP literals, localhost and ALLOWED_HOSTS, and 421 to any other Host", async () => {
    for (const host of [
      "192.168.1.20:3000",
      "127.0.0.1",
      "[::1]:3000",
      "localhost:3000",
      "LOCALHOST",
      "shop.example",
      "Shop.Example:8080",
    ]) {
      expect((await get(pages, "/robots.txt", host)).status, host).toBe(200);
    }
    for (const host of [
      "evil.example",
      "shop.example.evil.example",
      "192.168.1.20.evil.example",
      "localhost.evil.example",
    ]) {
      const response = await get(pages, "/robots.txt", host);
      expect(response.status, host).toBe(421);
      expect(await response.text()).not.toContain(host);
      expect((await get(pages, "/", host)).status, host).toBe(421);
    }
    // The balancer's checks are answered whatever Host it sends.
    expect((await get(pages, "/healthz", "backend-3")).status).toBe(200);
  });

  it("without PUBLIC_URL the sitemap and robots.txt name the request's host and are cached privately", async () => {
    const sitemap = await get(pages, "/sitemap.xml", "192.168.1.20:3000");
    expect(sitemap.headers.get("cache-control")).toBe("private, max-age=3600");
    expect(await sitemap.text()).toContain("<loc>http://192.168.1.20:3000/</loc>");
    const robots = await get(pages, "/robots.txt", "192.168.1.20:3000");
    expect(robots.headers.get("cache-control")).toBe("private, max-age=86400");
    expect(await robots.text()).toContain("Sitemap: http://192.168.1.20:3000/sitemap.xml");
  });

  it("with PUBLIC_URL every Host is answered with links to PUBLIC_URL, cached publicly", async () => {
    const sitemap = await get(pagesWithPublicUrl, "/sitemap.xml", "evil.example");
    expect(sitemap.status).toBe(200);
    expect(sitemap.headers.get("cache-control")).toBe("public, max-age=3600");
    const xml = await sitemap.text();
    expect(xml).toContain("<loc>https://shop.example/</loc>");
    expect(xml).not.toContain("evil.example");
    const robots = await get(pagesWithPublicUrl, "/robots.txt", "evil.example");
    expect(robots.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(await robots.text()).toContain("Sitemap: https://shop.example/sitemap.xml");
  });
});

describeEachDatabase("the host rule on JSON routes", (getDatabase) => {
  it("refuses an unknown Host with 421 before anything is read or written", async () => {
    const shop = await createTestShop(getDatabase(), { allowedHosts: [] });
    const refused = await shop.app.request("http://evil.example/basket/add", {
      method: "POST",
      headers: { host: "evil.example", "content-type": "application/json" },
      body: JSON.stringify({ productId: "12321341" }),
    });
    expect(refused.status).toBe(421);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("MISDIRECTED_REQUEST");
    const local = await shop.app.request("http://10.0.0.5/basket", { headers: { host: "10.0.0.5" } });
    expect(local.status).toBe(200);
  });
});
