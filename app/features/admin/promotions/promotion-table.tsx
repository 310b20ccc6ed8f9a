// The console's promotion codes as a table: each code (a link to its form), its kind, value, minimum, uses so far,
// status and dates.

import { Link } from "react-router";
import { StatusBadge } from "#app/features/admin/console-ui";

/** A promotion as the loader words it. */
export interface PromotionRow {
  id: string;
  code: string;
  type: string;
  value: string;
  minimum: string;
  uses: string;
  status: string;
  dates: string;
}

/** The table, or "No promotions yet." */
export function PromotionTable({ promotions }: { promotions: PromotionRow[] }) {
  return promotions.length === 0 ? (
    <p>No promotions yet.</p>
  ) : (
    <table className="console-table" tabIndex={0}>
      <caption className="visually-hidden">Promotion codes</caption>
      <thead>
        <tr>
          <th scope="col">Code</th>
          <th scope="col">Type</th>
          <th scope="col">Value</th>
          <th scope="col" className="console-number">
            Minimum
          </th>
          <th scope="col" className="console-number">
            Uses
          </th>
          <th scope="col">Status</th>
          <th scope="col">Dates</th>
        </tr>
      </thead>
      <tbody>
        {promotions.map((promotion) => (
          <tr key={promotion.id}>
            <td>
              <Link to={`/admin/promotions/${promotion.id}`}>
                <code>{promotion.code}</code>
              </Link>
            </td>
            <td>{promotion.type}</td>
            <td>{promotion.value}</td>
            <td className="console-number">{promotion.minimum}</td>
            <td className="console-number">{promotion.uses}</td>
            <td>
              <StatusBadge status={promotion.status} label={promotion.status === "active" ? "Active" : "Paused"} />
            </td>
            <td>{promotion.dates}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
