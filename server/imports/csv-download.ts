// A CSV download streamed as its rows are read, page by page through the CSV writer and gzip to the socket with back-
// pressure, so a large export never sits in memory.

import { pipeline, Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { stringify } from "csv-stringify";
import { parseAccept } from "hono/utils/accept";
import { neutraliseFormula } from "./csv-cells";

/**
 * A CSV download streamed as its rows are read: a page of rows at a time goes from the database through the CSV
 * writer (csv-stringify) and, for a client that takes it, gzip, to the socket, with back-pressure all the way, so an
 * export of 100,000 variants never sits in memory. It is compressed here, as a stream, and marked no-transform, so
 * that the shop's whole-body compression (http/compress.ts) leaves it alone. Every cell goes through the CSV
 * injection rule (csv-cells.ts). A byte-order mark first, so that a spreadsheet reads it as UTF-8.
 */
export function csvDownload(
  request: Request,
  { fileName, columns, rows }: { fileName: string; columns: readonly string[]; rows: AsyncIterable<readonly string[]> },
): Response {
  const isGzipped = acceptsGzip(request.headers.get("accept-encoding"));
  const cells = Readable.from(neutralised(rows));
  const csv = stringify({ header: true, columns: [...columns], bom: true, record_delimiter: "unix" });
  const onError = (error: Error | null) => {
    // A failed read mid-download (the database went away) cuts the download short: the client sees it incomplete.
    if (error) csv.destroy(error);
  };
  const body = isGzipped ? pipeline(cells, csv, createGzip(), onError) : pipeline(cells, csv, onError);
  const headers = new Headers({
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${fileName.replace(/[^\w.-]/g, "-")}"`,
    "Cache-Control": "private, no-store, no-transform",
    Vary: "Accept-Encoding",
  });
  if (isGzipped) headers.set("Content-Encoding", "gzip");
  return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, { status: 200, headers });
}

async function* neutralised(rows: AsyncIterable<readonly string[]>): AsyncGenerator<string[]> {
  for await (const row of rows) yield row.map(neutraliseFormula);
}

function acceptsGzip(acceptEncoding: string | null): boolean {
  if (!acceptEncoding) return false;
  const accepts = parseAccept(acceptEncoding);
  const named = accepts.find((accept) => accept.type.toLowerCase() === "gzip");
  return (named?.q ?? accepts.find((accept) => accept.type === "*")?.q ?? 0) > 0;
}
