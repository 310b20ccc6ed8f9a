/** Returns as shoppers and operators read them: reasons, statuses, what each status allows. */

export const RETURN_REASONS = [
  { code: "changed_mind", label: "Changed my mind" },
  { code: "arrived_damaged", label: "Arrived damaged" },
  { code: "wrong_item", label: "Wrong item" },
  { code: "doesnt_fit", label: "Doesn't fit" },
  { code: "other", label: "Other" },
] as const;

export type ReturnReason = (typeof RETURN_REASONS)[number]["code"];
export const RETURN_REASON_CODES = RETURN_REASONS.map((reason) => reason.code) as [ReturnReason, ...ReturnReason[]];

export function returnReasonLabel(code: string | null): string {
  return RETURN_REASONS.find((reason) => reason.code === code)?.label ?? "No reason asked";
}

export type ReturnStatus = "requested" | "approved" | "declined" | "received" | "refunded" | "cancelled";
export type ReturnKind = "return" | "withdrawal";
export type ReturnResolution = "refund" | "replace";

export const RETURN_STATUS_LABELS: Record<ReturnStatus, string> = {
  requested: "Requested",
  approved: "Approved",
  declined: "Declined",
  received: "Received",
  refunded: "Refunded",
  cancelled: "Cancelled",
};

export const RETURN_KIND_LABELS: Record<ReturnKind, string> = { return: "Return", withdrawal: "Withdrawal" };

/**
 * What may be done to a return, by its status: decided while requested; cancelled at any status before Received;
 * received once approved; refunded or replaced once received. The service enforces it and the console reads it.
 */
export const RETURN_ACTIONS = {
  approve: (status: ReturnStatus) => status === "requested",
  decline: (status: ReturnStatus) => status === "requested",
  cancel: (status: ReturnStatus) => status === "requested" || status === "approved",
  receive: (status: ReturnStatus) => status === "approved",
  refund: (status: ReturnStatus) => status === "received",
  replace: (status: ReturnStatus) => status === "received",
} as const satisfies Record<string, (status: ReturnStatus) => boolean>;

export type ReturnAction = keyof typeof RETURN_ACTIONS;

export function returnAllows(status: ReturnStatus, action: ReturnAction): boolean {
  return RETURN_ACTIONS[action](status);
}

/** Open returns waiting on the shop longer than this are on Needs attention. */
export const RETURN_ATTENTION_DAYS = 3;

/** The query parameter (and form field) the guest's signed order link carries its signature in. */
export const ORDER_ACCESS_PARAM = "access";

/** SF-2611-8K3Q-R1: a return's number, its order's and its place among the order's returns. */
export const RETURN_NUMBER_PATTERN = /^SF-\d{4}-[2-9A-HJKMNP-Z]{4}-R\d{1,4}$/;
