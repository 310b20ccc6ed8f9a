// The console's gate: an operator without two-step verification is sent to set it up before any console page.

import type { MiddlewareHandler } from "hono";
import { AppError } from "#shared/errors";
import type { TwoStepService } from "#server/two-step/two-step-service";
import { isAdminPath } from "./admin-guard";
import type { AppEnv } from "./app-env";

/** Where an operator is sent to set up two-step verification: the account page's section. */
export const TWO_STEP_SETUP_PATH = "/account?notice=two-step-required#two-step";

/**
 * "Require two-step verification for staff": an operator without it reaches no console page, loader or action. A page
 * asked for is answered with a redirect to the account page's setup; anything else (a data request, a form) is
 * refused with the same reason, before React Router runs any console code.
 */
export function requireTwoStepForConsole(
  twoStep: Pick<TwoStepService, "mustSetUpBeforeConsole">,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = c.get("shopper").user;
    if (!user?.isOperator || !isAdminPath(c.req.path) || !(await twoStep.mustSetUpBeforeConsole(user))) return next();
    const isPage = (c.req.method === "GET" || c.req.method === "HEAD") && !c.req.path.endsWith(".data");
    if (isPage) return c.redirect(TWO_STEP_SETUP_PATH, 303);
    throw new AppError(
      "FORBIDDEN",
      "Set up two-step verification on your account page before using the console: the shop requires it for staff.",
    );
  };
}
