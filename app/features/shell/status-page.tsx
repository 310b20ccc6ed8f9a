import { Link } from "react-router";

/** The body of the 404 and error pages: what happened, in a sentence, and a way home. */
export function StatusPage({ title, message }: { title: string; message: string }) {
  return (
    <main id="main" className="status-page">
      <title>{`${title} | Storefront`}</title>
      <h1>{title}</h1>
      <p>{message}</p>
      <Link className="button" to="/">
        Go to the home page
      </Link>
    </main>
  );
}
