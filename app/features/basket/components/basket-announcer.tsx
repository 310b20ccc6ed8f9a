import { useBasket } from "../basket-context";

/**
 * Says what happened to the basket: "Added to basket" to screen readers (and briefly on screen), or why a change
 * failed. The live regions are always in the page, so assistive technology notices when their text changes.
 */
export function BasketAnnouncer({ formError }: { formError: string | null }) {
  const { announcement } = useBasket();
  const error = announcement?.isError ? announcement.text : formError;
  const status = announcement && !announcement.isError ? announcement : null;
  return (
    <>
      <div role="alert" className={error ? "notice notice--error" : "notice notice--empty"}>
        {error}
      </div>
      <div role="status" className="toast">
        {/* A new key per announcement: the same words twice are still read twice, and the toast replays. */}
        {status ? (
          <span key={status.id} className="toast__message">
            {status.text}
          </span>
        ) : null}
      </div>
    </>
  );
}
