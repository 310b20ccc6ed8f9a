// The test processor's stand-in for the bank's 3-D Secure page: complete or fail, never left waiting.

import { useEffect, useRef } from "react";

/**
 * The test-mode stand-in for the bank's 3-D Secure page: a modal dialog asking the shopper to complete or fail
 * the authentication. Escape counts as "Fail", so the page is never left waiting.
 */
export function AuthenticationDialog({
  amount,
  onAnswer,
}: {
  amount: string;
  onAnswer: (outcome: "complete" | "fail") => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="auth-dialog"
      aria-labelledby="auth-dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        onAnswer("fail");
      }}
    >
      <h2 id="auth-dialog-title">Authenticate your payment</h2>
      <p>Your bank asks you to confirm this payment of {amount}.</p>
      <p className="auth-dialog__note">Test mode: choose whether the authentication succeeds.</p>
      <div className="auth-dialog__actions">
        <button type="button" className="button" onClick={() => onAnswer("complete")}>
          Complete
        </button>
        <button type="button" className="auth-dialog__fail" onClick={() => onAnswer("fail")}>
          Fail
        </button>
      </div>
    </dialog>
  );
}
