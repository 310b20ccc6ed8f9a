/**
 * Server CPU of the pricing function on POST /payments/create: priceOrder alone, in this process, on the shape of
 * basket and shop a busy checkout prices (10 lines, 3 zones with 5 methods and weight tiers, 60 tax rates, a
 * percentage promotion). Reading the rates from the database is not in this figure (three small reads, measured with
 * the whole checkout by `BENCH_ONLY=cpuPerRequest npm run bench`).
 *
 *   source ../shared/env.sh && node bench/pricing.ts      # prints microseconds per pricing, and records the result
 *
 * The result replaces bench/results/pricing/latest.json and adds a row to history.md beside it (git keeps older runs).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { execSync } from "node:child_process";
import { priceOrder, type PricingInput } from "../server/pricing/price-order.ts";
import { appendTableRow } from "./lib/history.ts";

const method = (id: string, priceCents: number) => ({
  id,
  name: `Method ${id}`,
  estimate: "3-5 business days",
  priceCents,
  freeOverCents: 3500,
  weightTiers: [
    { upToGrams: 500, priceCents: 399 },
    { upToGrams: 2000, priceCents: 799 },
    { upToGrams: 10000, priceCents: 1499 },
  ],
});
const states = [
  "AL",
  "AK",
  "AZ",
  "AR",
  "CA",
  "CO",
  "CT",
  "DE",
  "FL",
  "GA",
  "HI",
  "ID",
  "IL",
  "IN",
  "IA",
  "KS",
  "KY",
  "LA",
  "ME",
  "MD",
];
const input: PricingInput = {
  lines: Array.from({ length: 10 }, (_, index) => ({
    key: `line-${index}`,
    title: `Product ${index}`,
    unitPriceCents: 1196 + index * 731,
    quantity: 1 + (index % 3),
    weightGrams: 150 * index,
    taxable: index % 4 !== 0,
  })),
  address: { country: "US", state: "CA" },
  methodId: "b",
  promotion: { kind: "percentage", code: "SAVE10", percent: 10 },
  rates: {
    zones: [
      { id: "z1", name: "Far states", countries: ["US"], states: ["AK", "HI"], methods: [method("x", 2500)] },
      {
        id: "z2",
        name: "United States",
        countries: ["US"],
        states: [],
        methods: [method("a", 599), method("b", 1499)],
      },
      {
        id: "z3",
        name: "Europe",
        countries: ["AT", "BE", "DK", "FR", "DE", "IE", "IT", "NL", "ES", "SE"],
        states: [],
        methods: [method("e", 1999), method("f", 3999)],
      },
    ],
    taxRates: [
      ...states.map((state, index) => ({
        id: `us-${state}`,
        country: "US",
        state,
        rate: 4000 + index * 125,
        taxesShipping: index % 2 === 0,
      })),
      ...Array.from({ length: 40 }, (_, index) => ({
        id: `c-${index}`,
        country: `X${index}`,
        state: null,
        rate: 20000,
        taxesShipping: true,
      })),
    ],
  },
};

const ROUNDS = 5;
const CALLS = 20_000;
for (let warm = 0; warm < CALLS; warm++) priceOrder(input);
const perCall: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const start = process.cpuUsage();
  for (let call = 0; call < CALLS; call++) priceOrder(input);
  const used = process.cpuUsage(start);
  perCall.push((used.user + used.system) / CALLS);
}
perCall.sort((a, b) => a - b);
const median = perCall[Math.floor(ROUNDS / 2)]!;
const commit = execSync("git rev-parse --short HEAD").toString().trim();
const date = new Date().toISOString();
const result = {
  date,
  commit,
  node: process.version,
  cpu: cpus()[0]?.model ?? "unknown",
  calls: CALLS,
  rounds: ROUNDS,
  microsecondsPerPricing: { median, all: perCall },
  targetMicroseconds: 200,
};
console.log(
  `priceOrder: ${median.toFixed(1)} µs of CPU per pricing (median of ${ROUNDS} rounds of ${CALLS}; target 200 µs)`,
);
const dir = "bench/results/pricing";
mkdirSync(dir, { recursive: true });
writeFileSync(`${dir}/latest.json`, `${JSON.stringify(result, null, 2)}\n`);
appendTableRow(
  `${dir}/history.md`,
  "# Pricing CPU history\n\nOne row per `node bench/pricing.ts`, oldest first: CPU per pricing of a 10-line basket (median of the rounds).\n\n",
  ["date", "commit", "µs per pricing", "target", "Node", "CPU"],
  [date.slice(0, 10), commit, median.toFixed(1), `${result.targetMicroseconds}`, result.node, result.cpu],
  ["l", "l", "r", "r", "l", "l"],
);
