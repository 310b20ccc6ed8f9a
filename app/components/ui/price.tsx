// A price in cents as every page shows it.

import { formatCents } from "#shared/money";

/** A price in cents, shown as "$1,094.98". */
export function Price({ cents, className }: { cents: number; className?: string }) {
  return <span className={className ? `price ${className}` : "price"}>{formatCents(cents)}</span>;
}
