// The console's request limits: which addresses are the console's (as React Router matches them) and the larger bodies
// only its picture, import and settings forms may post, operators only.

import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "#shared/errors";
import type { AppEnv } from "./app-env";

/**
 * /admin and everything under it, as React Router would match it: any case, percent-encoded or not, repeated
 * slashes, and the data requests of its pages ("/admin.data", "/admin/products.data").
 */
export function isAdminPath(pathname: string): boolean {
  let decoded = pathname;
  try {
    decoded = decodeURIComponent(pathname);
  } catch (error) {
    // A malformed escape (URIError) is matched as it is.
    if (!(error instanceof URIError)) throw error;
  }
  return /^\/+admin(?:[/.]|$)/i.test(decoded);
}

/**
 * The console's three forms with files, the only request bodies above the shop's 32 KB limit: the product form's
 * pictures (the product's and its variants', 10 MB each, 30 MB together, and its fields), the CSV import (20 MB
 * and its fields) and the shop's settings (a logo of 1 MB and the legal texts). A single picture above its own limit
 * within the form's is refused under its own field.
 */
const PICTURE_TOO_LARGE =
  "The pictures are larger than 30 MB together. Nothing was saved: go back and choose smaller ones, or save a few at a time.";
export const PICTURE_FORM_MAX_BYTES = 30 * 1024 * 1024 + 64 * 1024;
const CSV_TOO_LARGE =
  "The file is larger than 20 MB. Nothing was imported: go back and choose a smaller one, or split the file.";
export const CSV_IMPORT_FORM_MAX_BYTES = 20 * 1024 * 1024 + 64 * 1024;
const SETTINGS_TOO_LARGE = "The logo is larger than 1 MB. Nothing was saved: go back and choose a smaller one.";
export const SETTINGS_FORM_MAX_BYTES = 2 * 1024 * 1024;
const SETTINGS_FORM_PATH = /^\/admin\/settings(?:\.data)?\/?$/;
const CSV_IMPORT_FORM_PATH = /^\/admin\/products\/import(?:\.data)?\/?$/;
const PICTURE_FORM_PATH = /^\/admin\/products\/(?!import(?:\.data)?\/?$)[^/]+\/?$/;
const isPictureForm = (method: string, path: string) => method === "POST" && PICTURE_FORM_PATH.test(path);
const isCsvImportForm = (method: string, path: string) => method === "POST" && CSV_IMPORT_FORM_PATH.test(path);
const isSettingsForm = (method: string, path: string) => method === "POST" && SETTINGS_FORM_PATH.test(path);
/** A console form allowed more than the shop's body limit (from an operator only: consoleRequestLimits). */
export const isLargeConsoleForm = (method: string, path: string) =>
  isPictureForm(method, path) || isCsvImportForm(method, path) || isSettingsForm(method, path);

/**
 * The console's request limits: the picture form and the CSV import alone may carry a large body, and only from an operator; everyone
 * else's is held to the shop's limit, as on any other address. An operator's console pages are never cached.
 * (Who sees the console at all is decided by which page handler answers: see page-handlers.ts.)
 */
export function consoleRequestLimits({ maxBodyBytes }: { maxBodyBytes: number }): MiddlewareHandler<AppEnv> {
  const tooLarge = () => {
    throw new AppError("PAYLOAD_TOO_LARGE", "The request is too large.");
  };
  // A form posted without JavaScript gets a page with the sentence, not an error body; the enhanced form, the same status.
  const formLimit = (maxSize: number, title: string, sentence: string) =>
    bodyLimit({
      maxSize,
      onError: (c) =>
        c.html(
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} | Console</title></head><body><main><h1>${title}</h1><p>${sentence}</p><p><a href="${c.req.path.replace(/\.data$/, "").replace(/[^\w/-]/g, "")}">Back to the form</a></p></main></body></html>`,
          413,
        ),
    });
  const pictureFormLimit = formLimit(PICTURE_FORM_MAX_BYTES, "Pictures too large", PICTURE_TOO_LARGE);
  const csvImportFormLimit = formLimit(CSV_IMPORT_FORM_MAX_BYTES, "File too large", CSV_TOO_LARGE);
  const settingsFormLimit = formLimit(SETTINGS_FORM_MAX_BYTES, "Logo too large", SETTINGS_TOO_LARGE);
  const shopLimit = bodyLimit({ maxSize: maxBodyBytes, onError: tooLarge });
  return async (c, next) => {
    if (!isAdminPath(c.req.path)) return next();
    if (c.get("shopper").user?.isOperator !== true)
      return isLargeConsoleForm(c.req.method, c.req.path) ? shopLimit(c, next) : next();
    // The limit answers a too-large form itself; that answer becomes the response.
    const refusal: unknown = isPictureForm(c.req.method, c.req.path)
      ? await pictureFormLimit(c, next)
      : isCsvImportForm(c.req.method, c.req.path)
        ? await csvImportFormLimit(c, next)
        : isSettingsForm(c.req.method, c.req.path)
          ? await settingsFormLimit(c, next)
          : await next();
    if (refusal instanceof Response) c.res = refusal;
    if (!c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "private, no-store");
  };
}
