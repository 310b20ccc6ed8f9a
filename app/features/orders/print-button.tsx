// "Print receipt": the browser's print dialog over the order's print stylesheet.

/** "Print receipt": the browser's print dialog; the print stylesheet makes the order one clean page. */
export function PrintButton() {
  return (
    <button type="button" className="button order-page__print" onClick={() => window.print()}>
      Print receipt
    </button>
  );
}
