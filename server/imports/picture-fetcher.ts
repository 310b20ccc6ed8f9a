// Fetching the pictures a CSV import names, after the import: public addresses only, a few at a time, each checked and
// stored, its outcome kept for the report.

import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { sql } from "kysely";
import {
  RequestFilteringHttpAgent,
  RequestFilteringHttpsAgent,
  type RequestFilteringAgentOptions,
} from "request-filtering-agent";
import { recordAudit } from "#server/audit/audit-log";
import { MAX_PICTURE_BYTES, type PictureStore, type StoredPicture } from "#server/pictures/picture-store";
import type { CatalogueService } from "#server/catalogue/catalogue-service";
import type { DB } from "#server/db/client";
import type { Logger } from "#server/logger";
import { AppError } from "#shared/errors";

/** Pictures fetched at once by one instance. */
export const PICTURE_FETCHES_AT_ONCE = 4;
/** The longest one picture may take, from the first request to the last byte, redirects included. */
export const PICTURE_FETCH_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 5;
/** A claim outlives a fetch (10 s) and its encoding: past it another instance may take the picture over. */
const CLAIM_SECONDS = 120;
/** Pictures left pending by an instance that stopped are picked up by any instance within this time. */
const POLL_INTERVAL_MS = 30_000;

const NOT_PUBLIC =
  "The picture's address is not a public one (a loopback, private, link-local or metadata address): it was not fetched.";

/** Why a picture was not stored, in the operator's words. */
class PictureRefused extends Error {}

/**
 * Fetches the pictures a CSV import named by addresses elsewhere, after the import has committed, in the background:
 * at most four at a time, each within 10 seconds and 10 MB, only from public addresses. The check is made on the
 * address each connection is actually opened to, after the name is looked up, for the first request and every
 * redirect alike (request-filtering-agent), so a public name that resolves to, or redirects to, a loopback, private,
 * link-local or metadata address is refused. The bytes then go through the console upload's own checks and encoding
 * (picture-store.ts); the product gets the picture unless it was given another one meanwhile. A failure is kept with
 * its reason on the import's report. Pending pictures are claimed row by row (any instance may take them, each once).
 */
export function createPictureFetcher({
  db,
  pictures,
  catalogue,
  logger,
  allowLoopback = false,
  timeoutMs = PICTURE_FETCH_TIMEOUT_MS,
}: {
  db: DB;
  pictures: PictureStore;
  catalogue: CatalogueService;
  logger: Logger;
  /** TEST_ONLY_ALLOW_LOOPBACK_PICTURES: tests serve pictures from 127.0.0.1; never in a shop (config.ts refuses it with live keys). */
  allowLoopback?: boolean;
  timeoutMs?: number;
}) {
  // A name that resolves to an IPv4-compatible IPv6 address (::/96) is refused as its IPv4 form would be.
  const filtering: RequestFilteringAgentOptions = allowLoopback
    ? { allowIPAddressList: ["127.0.0.0/8", "::1"] }
    : { denyIPAddressList: ["::/96"] };
  const agents = {
    "http:": new RequestFilteringHttpAgent(filtering),
    "https:": new RequestFilteringHttpsAgent(filtering),
  };
  let running = 0;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  const workers = new Set<Promise<void>>();

  /** A host that is not an IP address passes (its lookup is judged by the agent); an IP address must be public. */
  function isPublicLiteral(host: string): boolean {
    if (isIP(host) === 0) return true;
    const address = asIPv4IfCompatible(ipaddr.process(host));
    return address.range() === "unicast" || (allowLoopback && address.range() === "loopback");
  }

  /** One GET, following redirects itself (each through the filtering agent), at most maxBytes of body. */
  async function download(address: string): Promise<Uint8Array> {
    const signal = AbortSignal.timeout(timeoutMs);
    let url = new URL(address);
    for (let redirects = 0; ; redirects++) {
      if (url.protocol !== "http:" && url.protocol !== "https:")
        throw new PictureRefused("The picture's address must start with http:// or https://.");
      if (url.username || url.password)
        throw new PictureRefused("The picture's address must not carry a user name or password.");
      // An address written as a number is judged before any request (the agent judges every connection again).
      if (!isPublicLiteral(url.hostname.replace(/^\[|\]$/g, ""))) throw new PictureRefused(NOT_PUBLIC);
      const answer = await get(url, signal);
      if (answer.redirect) {
        if (redirects >= MAX_REDIRECTS)
          throw new PictureRefused(`The picture's address redirected more than ${MAX_REDIRECTS} times.`);
        url = new URL(answer.redirect, url);
        continue;
      }
      return answer.body!;
    }
  }

  function get(url: URL, signal: AbortSignal): Promise<{ redirect?: string; body?: Uint8Array }> {
    return new Promise((resolve, reject) => {
      const client = url.protocol === "https:" ? https : http;
      const request = client.get(
        url,
        {
          agent: agents[url.protocol as "http:" | "https:"],
          signal,
          headers: {
            accept: "image/webp,image/png,image/jpeg,image/*;q=0.8",
            "user-agent": "Storefront picture import",
          },
        },
        (response) => {
          const status = response.statusCode ?? 0;
          if (status >= 300 && status < 400 && response.headers.location) {
            response.resume();
            resolve({ redirect: response.headers.location });
            return;
          }
          if (status !== 200) {
            response.resume();
            reject(
              new PictureRefused(
                `The picture's address answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ""}.`,
              ),
            );
            return;
          }
          if (Number(response.headers["content-length"] ?? 0) > MAX_PICTURE_BYTES) {
            response.destroy();
            reject(new PictureRefused("The picture is larger than 10 MB."));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            size += chunk.byteLength;
            if (size > MAX_PICTURE_BYTES) {
              response.destroy();
              reject(new PictureRefused("The picture is larger than 10 MB."));
              return;
            }
            chunks.push(chunk);
          });
          response.on("end", () => resolve({ body: new Uint8Array(Buffer.concat(chunks)) }));
          response.on("error", reject);
        },
      );
      request.on("error", reject);
    });
  }

  /** The operator's sentence for a failure. */
  function reasonOf(error: unknown): string {
    if (error instanceof PictureRefused || error instanceof AppError) return error.message;
    const message = error instanceof Error ? error.message : String(error);
    if (/is not allowed/.test(message)) return NOT_PUBLIC;
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
      return `The picture took longer than ${timeoutMs / 1000} seconds to arrive.`;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "The picture's address names a host that does not exist.";
    return `The picture could not be fetched (${code ?? message}).`.slice(0, 300);
  }

  /** Claims one pending picture no fetcher holds (or whose fetcher's claim lapsed). */
  async function claim() {
    const result = await sql<{
      import_id: string;
      product_id: string;
      url: string;
      replaces: string;
      operator_id: string | null;
      operator_email: string;
    }>`
      update product_import_pictures as p
         set claimed_until = now() + make_interval(secs => ${CLAIM_SECONDS})
        from product_imports as i
       where i.id = p.import_id
         and (p.import_id, p.product_id) = (
           select import_id, product_id from product_import_pictures
            where status = 'pending' and (claimed_until is null or claimed_until < now())
            order by claimed_until nulls first, line
            limit 1
            for update skip locked)
      returning p.import_id, p.product_id, p.url, p.replaces, i.operator_id, i.operator_email`.execute(db);
    return result.rows[0];
  }

  async function finish(
    job: { import_id: string; product_id: string },
    outcome: { storedAs: string } | { reason: string },
  ) {
    await db
      .updateTable("product_import_pictures")
      .set({
        status: "storedAs" in outcome ? "stored" : "failed",
        stored_as: "storedAs" in outcome ? outcome.storedAs : null,
        reason: "reason" in outcome ? outcome.reason : null,
        claimed_until: null,
        updated_at: sql`now()`,
      })
      .where("import_id", "=", job.import_id)
      .where("product_id", "=", job.product_id)
      .execute();
  }

  /** Fetches, stores and gives the product one claimed picture; a failure is recorded, never thrown. */
  async function fetchOne(job: NonNullable<Awaited<ReturnType<typeof claim>>>): Promise<void> {
    let stored: StoredPicture;
    try {
      stored = await pictures.storePicture(await download(job.url));
    } catch (error) {
      logger.info(
        { err: error, productId: job.product_id, url: job.url },
        "picture import: a picture was not fetched; the import's page says why",
      );
      await finish(job, { reason: reasonOf(error) });
      return;
    }
    try {
      await catalogue.updateProduct(job.product_id, { image: stored }, async (trx, before, after) => {
        // Given another picture since the import (the product form): that one stays.
        if (before?.image !== job.replaces)
          throw new PictureRefused("The product was given another picture since the import: that one was kept.");
        await recordAudit(
          trx,
          { id: job.operator_id, email: job.operator_email },
          {
            action: "product.import-picture",
            subject: after.id,
            before: { image: before.image },
            after: { image: after.image, from: job.url },
          },
        );
      });
      await finish(job, { storedAs: stored.src });
    } catch (error) {
      logger.info(
        { err: error, productId: job.product_id, url: job.url },
        "picture import: a fetched picture was not given to its product; the import's page says why",
      );
      await finish(job, {
        reason:
          error instanceof AppError && error.code === "NOT_FOUND"
            ? "The product was removed before its picture arrived."
            : reasonOf(error),
      });
    }
  }

  async function work(): Promise<void> {
    for (;;) {
      if (stopped) return;
      const job = await claim();
      if (!job) return;
      await fetchOne(job);
    }
  }

  /** Starts fetchers up to four, each working until nothing is left to claim. */
  function wake(): void {
    if (stopped) return;
    while (running < PICTURE_FETCHES_AT_ONCE) {
      running += 1;
      const worker = work()
        .catch((error: unknown) =>
          logger.warn(
            { err: error },
            "picture import: a fetcher stopped on an error; pending pictures are taken up again within a minute",
          ),
        )
        .finally(() => {
          running -= 1;
          workers.delete(worker);
        });
      workers.add(worker);
    }
  }

  return {
    wake,
    /** Fetches until nothing is pending: start-up's pictures left by a stopped instance, then every POLL_INTERVAL_MS. */
    start(): void {
      stopped = false;
      wake();
      timer = setInterval(wake, POLL_INTERVAL_MS);
      timer.unref();
    },
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await Promise.all(workers);
    },
    /** Resolves once no fetcher is working (tests wait on it after an import). */
    async idle(): Promise<void> {
      while (workers.size > 0) await Promise.all(workers);
    },
  };
}

export type PictureFetcher = ReturnType<typeof createPictureFetcher>;

/**
 * An IPv4-compatible IPv6 address (::/96, as [::127.0.0.1]) judged as the IPv4 address it carries, as ipaddr.process
 * already does for the mapped ::ffff:0:0/96; the unspecified :: and the loopback ::1 stay what they are.
 */
function asIPv4IfCompatible(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() !== "ipv6") return address;
  const bytes = address.toByteArray();
  if (bytes.slice(0, 12).some((byte) => byte !== 0)) return address;
  const carried = bytes.slice(12);
  if (carried.slice(0, 3).every((byte) => byte === 0) && carried[3]! <= 1) return address;
  return ipaddr.fromByteArray(carried);
}
