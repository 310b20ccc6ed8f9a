// What the console's order page shows of an order: its facts (payment, fulfilment, card, address), its lines with the
// charged breakdown, and its status history.

import { Link } from "react-router";
import type { ConsoleOrder } from "./order-detail-types";
import { StatusBadge } from "#app/features/admin/console-ui";

/** Payment and fulfilment states, when paid, how much, to whom and with what. */
export function OrderFacts({ order }: { order: ConsoleOrder }) {
  return (
    <dl className="console-facts">
      <dt>Payment</dt>
      <dd>
        <StatusBadge status={order.payment.key} label={order.payment.label} />
      </dd>
      <dt>Fulfilment</dt>
      <dd>
        <StatusBadge status={order.fulfilment.key} label={order.fulfilment.label} />
      </dd>
      {order.replacesReturnNumber ? (
        <>
          <dt>Replaces</dt>
          <dd>
            <Link to={`/admin/returns/${order.replacesReturnNumber}`}>{`Return ${order.replacesReturnNumber}`}</Link>
          </dd>
        </>
      ) : null}
      <dt>Paid</dt>
      <dd>{order.paidAt}</dd>
      <dt>Total</dt>
      <dd>{order.total}</dd>
      <dt>Refunded</dt>
      <dd>{order.refunded}</dd>
      <dt>E-mail</dt>
      <dd>{order.email}</dd>
      <dt>Deliver to</dt>
      <dd>{order.address.length ? order.address.join(", ") : "–"}</dd>
      <dt>Card</dt>
      <dd>{order.paidWith.card}</dd>
      <dt>Payment intent</dt>
      <dd>
        <code>{order.paidWith.intentId}</code> · {order.paidWith.processor} · {order.paidWith.mode}
      </dd>
    </dl>
  );
}

/** The lines as bought, and the order's breakdown as charged. */
export function OrderItems({ order }: { order: ConsoleOrder }) {
  return (
    <>
      <h2>Items</h2>
      <table className="console-table" tabIndex={0}>
        <thead>
          <tr>
            <th scope="col" className="console-grow">
              Item
            </th>
            <th scope="col" className="console-number">
              Quantity
            </th>
            <th scope="col" className="console-number">
              Price
            </th>
            <th scope="col" className="console-number">
              Line
            </th>
          </tr>
        </thead>
        <tbody>
          {order.items.map((item) => (
            <tr key={item.id}>
              <td>{item.title}</td>
              <td className="console-number">{item.quantity}</td>
              <td className="console-number">{item.price}</td>
              <td className="console-number">{item.line}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          {order.breakdown.map((line) => (
            <tr key={line.label} data-testid="order-breakdown">
              <th scope="row" colSpan={3}>
                {line.label}
              </th>
              <td className="console-number">{line.value}</td>
            </tr>
          ))}
          <tr>
            <th scope="row" colSpan={3}>
              Order Total
            </th>
            <td className="console-number" data-testid="order-total">
              {order.total}
            </td>
          </tr>
        </tfoot>
      </table>
    </>
  );
}

/** Every status the order went through, who moved it and with what (carrier, amount, note). */
export function OrderHistory({ history }: { history: ConsoleOrder["history"] }) {
  return (
    <>
      <h2>History</h2>
      <table className="console-table" tabIndex={0}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Status</th>
            <th scope="col">Who</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {history.map((entry) => (
            <tr key={entry.key}>
              <td>{entry.at}</td>
              <td>{entry.status}</td>
              <td>{entry.who}</td>
              <td>{entry.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
