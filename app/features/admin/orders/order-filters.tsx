// The order list's filters: the search by number or e-mail and the paid dates, the status tabs (with "Needs
// attention"), and the note that the list shows one mode only.

import { Form, Link } from "react-router";
import { ORDER_LIST_FILTERS, type OrderListFilter } from "#shared/orders";
import { listHref } from "./list-href";

/** The filter the list shows now. */
export interface OrderFilter {
  status: string | null;
  isNeedsAttention: boolean;
  mode: string | null;
  query: string;
  from: string;
  to: string;
}

/** "Order number or e-mail", "Paid from", "Paid to": the status, attention and mode filters carried along. */
export function OrderSearch({ filter }: { filter: OrderFilter }) {
  const { status, isNeedsAttention, mode, query, from, to } = filter;
  return (
    <Form method="get" className="console-search" role="search">
      <label htmlFor="order-search">Order number or e-mail</label>
      <input id="order-search" name="q" type="search" defaultValue={query} maxLength={254} key={query} />
      <label htmlFor="order-from">Paid from</label>
      <input id="order-from" name="from" type="date" defaultValue={from} key={`from-${from}`} />
      <label htmlFor="order-to">Paid to</label>
      <input id="order-to" name="to" type="date" defaultValue={to} key={`to-${to}`} />
      {status ? <input type="hidden" name="status" value={status} /> : null}
      {isNeedsAttention ? <input type="hidden" name="show" value="attention" /> : null}
      {mode ? <input type="hidden" name="mode" value={mode} /> : null}
      <button type="submit" className="console-button">
        Search
      </button>
    </Form>
  );
}

/** All, Needs attention, and one tab per status filter, each keeping the search and mode. */
export function OrderStatusTabs({ filter }: { filter: OrderFilter }) {
  const { status, isNeedsAttention, mode, query, from, to } = filter;
  return (
    <ul className="console-tabs console-tabs--wrap" aria-label="Order status">
      <li>
        <Link
          to={listHref({ status: null, mode, query, from, to })}
          aria-current={status === null && !isNeedsAttention ? "page" : undefined}
        >
          All
        </Link>
      </li>
      <li>
        <Link
          to={listHref({ status: null, isNeedsAttention: true, mode, query, from, to })}
          aria-current={isNeedsAttention ? "page" : undefined}
        >
          Needs attention
        </Link>
      </li>
      {(Object.keys(ORDER_LIST_FILTERS) as OrderListFilter[]).map((key) => (
        <li key={key}>
          <Link
            to={listHref({ status: key, mode, query, from, to })}
            aria-current={status === key ? "page" : undefined}
          >
            {ORDER_LIST_FILTERS[key].label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** "Test orders only." with a way back to every mode, when the list shows one. */
export function OrderModeNote({ filter }: { filter: OrderFilter }) {
  const { mode } = filter;
  return mode ? (
    <p className="console-count">
      {mode === "test" ? "Test orders only." : "Live orders only."}{" "}
      <Link to={listHref({ ...filter, mode: null })}>Show every mode</Link>
    </p>
  ) : null;
}
