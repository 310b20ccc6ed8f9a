import { describe, expect, it } from "vitest";
import { jsonForScriptElement } from "./product-structured-data";

describe("JSON-LD inside a script element", () => {
  it("cannot end the element, and reads back as the same value", () => {
    const value = { name: "</script><script>alert(1)</script> & more \u2028\u2029" };
    const text = jsonForScriptElement(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(text).toContain("\\u003c/script\\u003e");
    expect(JSON.parse(text)).toEqual(value);
  });
});
