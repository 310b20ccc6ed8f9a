import { request } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDatabase } from "#server/testing/test-database";
import { createTestShop } from "#server/testing/test-app";
import { MAX_BODY_BYTES } from "./app";

/** One request over a real socket, its body sent in chunks (no Content-Length) when `chunked`. */
function post(port: number, path: string, body: string, { chunked }: { chunked: boolean }) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (!chunked) headers["content-length"] = String(Buffer.byteLength(body));
    const sent = request({ host: "127.0.0.1", port, path, method: "POST", headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
    });
    sent.on("error", reject);
    // Two writes: without a Content-Length, Node sends them chunked.
    const middle = Math.floor(body.length / 2);
    sent.write(body.slice(0, middle));
    sent.end(body.slice(middle));
  });
}

describeEachDatabase("the shop's body limit", (getDatabase) => {
  let port = 0;
  let close: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    port = running.port;
    close = running.close;
  }, 60_000);
  afterAll(() => close());

  const bodyOf = (size: number) => `{"padding":"${"x".repeat(size - 14)}"}`;

  it("refuses a body one byte over the limit whether its length is stated or it comes in chunks", async () => {
    for (const chunked of [false, true]) {
      const over = await post(port, "/basket/add", bodyOf(MAX_BODY_BYTES + 1), { chunked });
      expect(over.status, chunked ? "chunked" : "with Content-Length").toBe(413);
      expect(over.text).toContain("The request is too large.");
      // At the limit the body is read and judged: here, refused for what it lacks.
      const at = await post(port, "/basket/add", bodyOf(MAX_BODY_BYTES), { chunked });
      expect(at.status, chunked ? "chunked" : "with Content-Length").toBe(400);
      expect(at.text).toContain("The request was not understood.");
    }
  });
});
