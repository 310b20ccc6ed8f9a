// Answering a route that takes both a form post and JSON: a 303 back to the page with the outcome, or the JSON answer,
// from one outcome.

import type { Context } from "hono";
import { AppError } from "#shared/errors";
import { bodyKind } from "./read-body";
import { jsonResponse } from "./response-bytes";

export interface Outcome {
  /** What a JSON caller gets. */
  json: Record<string, unknown>;
  status: 200 | 201;
  /** Where a form post without JavaScript goes back to; home when absent. */
  returnTo?: string;
}

/**
 * Where on its page a form post without JavaScript comes back to, set by the route once it knows (e.g. the product
 * whose button was pressed): the page opens scrolled to `fragment`, and an error also carries `errorParams`, so the
 * page can show its sentence next to that form rather than at the top.
 */
export interface FormReturn {
  fragment?: string;
  errorParams?: Record<string, string>;
}

/**
 * Answers an endpoint that serves both a plain form post and the enhanced page's JSON call. JSON callers get the
 * result or the error body. A form post is redirected (303, so a reload does not post again) back to its page;
 * an error rides along as `?{errorParam}={CODE}`, which the page turns into its sentence: never caller text.
 */
export async function answerFormOrJson(
  c: Context,
  errorParam: string,
  run: (formReturn: FormReturn) => Promise<Outcome>,
): Promise<Response> {
  const isForm = bodyKind(c.req.raw) === "form";
  const formReturn: FormReturn = {};
  const hash = () => (formReturn.fragment ? `#${encodeURIComponent(formReturn.fragment)}` : "");
  try {
    const { json, status, returnTo } = await run(formReturn);
    return isForm ? c.redirect(`${returnTo ?? "/"}${hash()}`, 303) : jsonResponse(c, json, status);
  } catch (error) {
    if (!isForm || !(error instanceof AppError)) throw error;
    const back = new URL(refererPath(c), "http://local");
    // The code goes last, after what it is about.
    const params = { ...formReturn.errorParams, [errorParam]: error.code };
    for (const [name, value] of Object.entries(params)) {
      back.searchParams.delete(name);
      back.searchParams.append(name, value);
    }
    return c.redirect(back.pathname + back.search + hash(), 303);
  }
}

/** The page a failed form post came from, if it is ours, else home. */
function refererPath(c: Context): string {
  const referer = c.req.header("referer");
  if (!referer) return "/";
  const url = URL.parse(referer);
  return url && url.host === c.req.header("host") ? url.pathname + url.search : "/";
}
