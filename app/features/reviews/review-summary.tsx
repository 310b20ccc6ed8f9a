// A product's rating summary: the average, the count and a bar per star level.

import { Stars } from "#app/components/ui/stars";
import { formatAverage, formatRatingCount, starPercentages, type ReviewSummary } from "#shared/reviews";

/** "4.3 out of 5", "12 global ratings" and a bar per star level (five down to one) with its percentage. */
export function ReviewSummaryPanel({ summary }: { summary: ReviewSummary }) {
  if (summary.count === 0 || summary.average === null) return <p className="reviews__none">No customer reviews yet.</p>;
  const percentages = starPercentages(summary.starCounts);
  return (
    <div className="reviews__summary">
      <p className="reviews__average">
        <Stars rating={summary.average} /> <span>{formatAverage(summary.average)}</span>
      </p>
      <p className="reviews__count">{formatRatingCount(summary.count)}</p>
      <table className="reviews__histogram">
        <caption className="visually-hidden">Share of ratings by stars</caption>
        <tbody>
          {[5, 4, 3, 2, 1].map((stars) => {
            const percent = percentages[stars - 1] ?? 0;
            return (
              <tr key={stars}>
                <th scope="row">{`${stars} star`}</th>
                <td className="reviews__bar-cell">
                  {/* A meter, not a styled width: the page's Content-Security-Policy allows no inline style attribute. */}
                  <meter className="reviews__bar" min={0} max={100} value={percent} aria-hidden="true" />
                </td>
                <td className="reviews__percent">{`${percent}%`}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
