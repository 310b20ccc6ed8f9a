// Saying what happened to the basket to screen readers ("Added to basket"), or why a change failed when no product's
// form owns the failure.

import { useBasket } from "#app/features/basket/basket-context";

/**
 * Says what happened to the basket: "Added to basket" to screen readers (and briefly on screen), or why a change
 * failed when the failure belongs to no product's form (those are shown next to the form: BasketError). The live
 * regions are always in the page, so assistive technology notices when their text changes.
 */
export function BasketAnnouncer() {
  const { announcement, formError } = useBasket();
  const pageError = formError && formError.productId === null ? formError.text : null;
  const error = announcement
    ? announcement.isError && announcement.productId === undefined
      ? announcement.text
      : null
    : pageError;
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
