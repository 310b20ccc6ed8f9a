// The way back a form carries, checked by local-path's rule; absent means home.

import { z } from "zod";
import { isLocalPath, MAX_LOCAL_PATH_LENGTH } from "./local-path";

/** The way back a form carries (shared/local-path.ts says which paths qualify); absent means home. */
export const returnToSchema = z
  .string()
  .max(MAX_LOCAL_PATH_LENGTH)
  .refine((path) => isLocalPath(path), "returnTo must be a path on this site")
  .optional();
