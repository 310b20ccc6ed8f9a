// The console's order list addresses: one place builds a filter's query string, so the tabs, the search, the pages
// and the CSV export (the same filter at /admin/orders/export) always agree.

/** The list's address for a filter (the export's too, at /admin/orders/export). */
export function listHref({
  status,
  isNeedsAttention,
  mode,
  query,
  from,
  to,
  after,
  path = "/admin/orders",
}: {
  status: string | null;
  isNeedsAttention?: boolean;
  mode: string | null;
  query: string;
  from?: string;
  to?: string;
  after?: string;
  path?: string;
}) {
  const params = new URLSearchParams();
  if (isNeedsAttention) params.set("show", "attention");
  else if (status) params.set("status", status);
  if (mode) params.set("mode", mode);
  if (query) params.set("q", query);
  if (from) params.set("from", from);
  if (to) params.set("to", to);
  if (after) params.set("after", after);
  const search = params.toString();
  return `${path}${search ? `?${search}` : ""}`;
}
