import { describe, expect, it } from "vitest";
import { bracketName, FORM_LIMITS, FormParseError, parseFormParams, valueAt } from "./form-params.ts";

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe("bracket-notation form bodies", () => {
  it("reads flat, nested and array parameters as Stripe's SDK and Stripe.js send them", () => {
    const body =
      "amount=1196&currency=usd&metadata[basket]=b_1&metadata%5Border%5D=o%202" +
      "&payment_method_data[card][number]=4242424242424242&payment_method_data[billing_details][address][postal_code]=12345" +
      "&payment_method_types[]=card&expand[0]=x&description=a+b%26c";
    expect(plain(parseFormParams(body))).toEqual({
      amount: "1196",
      currency: "usd",
      metadata: { basket: "b_1", order: "o 2" },
      payment_method_data: {
        card: { number: "4242424242424242" },
        billing_details: { address: { postal_code: "12345" } },
      },
      payment_method_types: ["card"],
      expand: ["x"],
      description: "a b&c",
    });
  });

  it("reads an empty body and empty values", () => {
    expect(plain(parseFormParams(""))).toEqual({});
    expect(plain(parseFormParams("description=&metadata[x]="))).toEqual({ description: "", metadata: { x: "" } });
  });

  it("builds objects without a prototype", () => {
    const params = parseFormParams("metadata[constructor]=x&toString[a]=1");
    expect(Object.getPrototypeOf(params)).toBeNull();
    expect(plain(params)).toEqual({ metadata: { constructor: "x" }, toString: { a: "1" } });
  });

  it.each([
    ["a repeated value", "amount=1&amount=2", /more than once/],
    ["a value then a hash", "metadata=x&metadata[a]=1", /both as a value and as a hash/],
    ["a hash then a value", "metadata[a]=1&metadata=x", /more than once/],
    ["an array then a hash", "a[]=1&a[b]=2", /both as a value and as a hash/],
    ["unbalanced brackets", "metadata[a=1", /Invalid parameter name/],
    ["text after brackets", "metadata[a]b=1", /Invalid parameter name/],
    ["empty brackets in the middle", "a[][b]=1", /only the last brackets/],
    ["a name that starts with a bracket", "[a]=1", /Invalid parameter name/],
    ["a key naming the prototype", "metadata[__proto__]=x", /Invalid parameter name/],
    ["a prototype hash", "__proto__[polluted]=1", /Invalid parameter name/],
    ["nesting deeper than the limit", "a[b][c][d][e][f]=1", /nested too deeply/],
    ["an over-long name", `${"a".repeat(FORM_LIMITS.maxNameLength + 1)}=1`, /too long/],
    [
      "too many pairs",
      Array.from({ length: FORM_LIMITS.maxPairs + 1 }, (_, index) => `metadata[k${index}]=v`).join("&"),
      /Too many parameters/,
    ],
  ])("refuses %s", (_name, body, message) => {
    expect(() => parseFormParams(body)).toThrow(FormParseError);
    expect(() => parseFormParams(body)).toThrow(message);
  });

  it("accepts nesting up to the limit", () => {
    expect(valueAt(parseFormParams("a[b][c][d][e]=1"), ["a", "b", "c", "d", "e"])).toBe("1");
  });

  it("names paths in bracket notation and finds values by path", () => {
    expect(bracketName(["payment_method_data", "card", "number"])).toBe("payment_method_data[card][number]");
    expect(bracketName(["amount"])).toBe("amount");
    const params = parseFormParams("a[]=x&a[]=y&b[c]=1");
    expect(valueAt(params, ["a", 1])).toBe("y");
    expect(valueAt(params, ["b", "c"])).toBe("1");
    expect(valueAt(params, ["b", "c", "d"])).toBeUndefined();
    expect(valueAt(params, ["z"])).toBeUndefined();
  });
});
