/**
 * Zod decides once whether it may compile object schemas by trying `new Function`. The shop's policy allows no eval,
 * and the browser reports the attempt as a securitypolicyviolation even though Zod catches the refusal: in the browser
 * it is told not to try. The console's shared schema modules, which its pages bundle, import this first.
 */

import { config } from "zod";

if (typeof document !== "undefined") config({ jitless: true });
