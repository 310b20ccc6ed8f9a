// The console's order page as its loader shapes it and its action answers: the one description its components share.

/** One order line, with what has been refunded and put back in stock of it. */
export interface ConsoleOrderItem {
  index: number;
  id: string;
  refundable: number;
  restockable: number;
  refunded: number;
  restocked: number;
  title: string;
  quantity: number;
  price: string;
  line: string;
}

/** The order page's figures, in words and formatted amounts. */
export interface ConsoleOrder {
  number: string;
  /** The return this order replaces (a $0.00 replacement order), else null. */
  replacesReturnNumber: string | null;
  payment: { key: string; label: string };
  fulfilment: { key: string; label: string };
  canShip: boolean;
  canCancel: boolean;
  canRefund: boolean;
  shippingLeft: string | null;
  total: string;
  refunded: string;
  left: string;
  /** Whether any of what was paid is not yet refunded (else Cancel and refund is only a cancel). */
  hasMoneyLeft: boolean;
  paidAt: string;
  email: string;
  address: string[];
  items: ConsoleOrderItem[];
  breakdown: { label: string; value: string }[];
  paidWith: { card: string; intentId: string; processor: string; mode: string };
  history: { key: number; at: string; status: string; who: string; detail: string }[];
  hasAccount: boolean;
  refundKey: string;
}

/**
 * `key`: a refused refund form is drawn again with its key, so sending it again cannot make a second refund.
 * `confirm`: a refund form's first sending only asks, naming the amount and the card; the answer carries the form's
 * fields on (`fields`), and the amount can be changed there, down only.
 */
export type OrderActionAnswer = {
  form: "ship" | "refund" | "cancel-and-refund" | null;
  errors: Record<string, string> | undefined;
  done: string | null;
  key?: string;
  confirm?: {
    question: string;
    button: string;
    /** What the refund gives back, in words ("1 × Cotton tee, put back in stock"). */
    details: string[];
    fields: [string, string][];
    /** The amount as typed in the confirmation's own field; null for Cancel and refund. */
    amount: string | null;
  };
};
