// The dashboard's net sales per day as an SVG bar chart drawn on the server: no script, no library.

import { formatCents } from "#shared/money";

const WIDTH = 720;
const HEIGHT = 220;
/** Room for the amounts on the left and the dates underneath. */
const PLOT = { left: 84, right: 8, top: 12, bottom: 28 };
const MOST_DATE_LABELS = 8;

/**
 * Net sales per day as bars, drawn on the server (an SVG: no script, no library). A day with more refunded than sold
 * goes below the line. Hidden from screen readers: the page gives the same numbers as a table.
 */
export function NetSalesChart({ days }: { days: readonly { date: string; label: string; netCents: number }[] }) {
  const highest = Math.max(0, ...days.map((day) => day.netCents));
  const lowest = Math.min(0, ...days.map((day) => day.netCents));
  const span = highest - lowest || 1;
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const y = (cents: number) => PLOT.top + ((highest - cents) / span) * plotHeight;
  const slot = plotWidth / Math.max(days.length, 1);
  const barWidth = Math.min(48, Math.max(1, slot * 0.7));
  const labelEvery = Math.ceil(days.length / MOST_DATE_LABELS);
  const zero = y(0);
  return (
    <svg className="console-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" aria-hidden="true" focusable="false">
      <line x1={PLOT.left} x2={WIDTH - PLOT.right} y1={zero} y2={zero} className="console-chart__axis" />
      {[highest, lowest]
        .filter((cents, index) => cents !== 0 || index === 0)
        .map((cents) => (
          <text key={cents} x={PLOT.left - 6} y={y(cents) + 4} textAnchor="end" className="console-chart__label">
            {formatCents(cents)}
          </text>
        ))}
      {highest !== 0 || lowest !== 0 ? (
        <text x={PLOT.left - 6} y={zero + 4} textAnchor="end" className="console-chart__label">
          $0.00
        </text>
      ) : null}
      {days.map((day, index) => {
        const x = PLOT.left + index * slot + (slot - barWidth) / 2;
        const top = Math.min(y(day.netCents), zero);
        return (
          <g key={day.date}>
            <rect
              x={x}
              y={top}
              width={barWidth}
              height={Math.abs(y(day.netCents) - zero)}
              className={day.netCents < 0 ? "console-chart__bar console-chart__bar--negative" : "console-chart__bar"}
            />
            {index % labelEvery === 0 ? (
              <text x={x + barWidth / 2} y={HEIGHT - 8} textAnchor="middle" className="console-chart__label">
                {day.label}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}
