// The dashboard's other parts: the counts that lead to work, the net sales per day (a chart, and the same numbers as a
// table for screen readers), returns by reason and the period's top products.

import { Link } from "react-router";
import { NetSalesChart } from "./net-sales-chart";

/** To ship, Needs attention, Low stock, Returns waiting: each count a link to its list. */
export function TodoCounts({ counts }: { counts: { label: string; count: string; href: string }[] }) {
  return (
    <ul className="console-counts" aria-label="To do">
      {counts.map((count) => (
        <li key={count.label}>
          <Link to={count.href}>
            <span className="console-counts__label">{count.label}</span>{" "}
            <span className="console-counts__value">{count.count}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Net sales per day. */
export function NetSalesSection({ days }: { days: { date: string; label: string; netCents: number; net: string }[] }) {
  return (
    <section aria-labelledby="chart-heading">
      <h2 id="chart-heading">Net sales per day</h2>
      <NetSalesChart days={days} />
      <table className="visually-hidden">
        <caption>Net sales per day</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Net sales</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <th scope="row">{day.date}</th>
              <td>{day.net}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Returns in the period by their reason: how many, how many items, how much refunded. */
export function ReturnsByReason({
  rows: returnsByReason,
}: {
  rows: { reason: string; returns: string; units: string; refunded: string }[];
}) {
  return (
    <section aria-labelledby="returns-heading">
      <h2 id="returns-heading">Returns by reason</h2>
      <table className="console-table" tabIndex={0} aria-labelledby="returns-heading">
        <thead>
          <tr>
            <th scope="col" className="console-grow">
              Reason
            </th>
            <th scope="col" className="console-number">
              Returns
            </th>
            <th scope="col" className="console-number">
              Items
            </th>
            <th scope="col" className="console-number">
              Refunded
            </th>
          </tr>
        </thead>
        <tbody>
          {returnsByReason.map((row) => (
            <tr key={row.reason} data-testid="returns-by-reason">
              <th scope="row">{row.reason}</th>
              <td className="console-number">{row.returns}</td>
              <td className="console-number">{row.units}</td>
              <td className="console-number">{row.refunded}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The products that sold most in the period. */
export function TopProducts({
  products: topProducts,
}: {
  products: { id: string; title: string; quantity: number; net: string }[];
}) {
  return (
    <section aria-labelledby="top-heading">
      <h2 id="top-heading">Top products</h2>
      {topProducts.length === 0 ? (
        <p className="console-count">Nothing sold in this period.</p>
      ) : (
        <table className="console-table" tabIndex={0} aria-labelledby="top-heading">
          <thead>
            <tr>
              <th scope="col" className="console-grow">
                Product
              </th>
              <th scope="col" className="console-number">
                Sold
              </th>
              <th scope="col" className="console-number">
                Net sales
              </th>
            </tr>
          </thead>
          <tbody>
            {topProducts.map((product) => (
              <tr key={product.id}>
                <td>{product.title}</td>
                <td className="console-number">{product.quantity}</td>
                <td className="console-number">{product.net}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
