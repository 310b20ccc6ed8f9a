// The 404 page for any path no other route claims, inside the shop layout.

import { data } from "react-router";
import { StatusPage } from "#app/features/shell/status-page";

/** Any path no other route claims: a real 404 status, inside the shop layout so the header stays. */
export function loader() {
  return data(null, { status: 404 });
}

/** A post to an unknown address is a 404 too, not "method not allowed" with the router's internals. */
export function action() {
  return data(null, { status: 404 });
}

export default function NotFound() {
  return <StatusPage title="Page not found" message="We couldn't find the page you were looking for." />;
}
