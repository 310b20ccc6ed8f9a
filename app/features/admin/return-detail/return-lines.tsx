// The return's items, each with its reason and resolution, and, until the parcel is in, the form that records how
// many of them came back and how many damaged.

import { Form } from "react-router";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { SeenStatus, type ConsoleReturn } from "./return-facts";

/** The items table; "Mark received" per line for a role that may. */
export function ReturnLines({
  found,
  errors,
  busy,
}: {
  found: ConsoleReturn;
  errors: Record<string, string> | undefined;
  busy: boolean;
}) {
  const seen = <SeenStatus status={found.status.key} />;
  return (
    <>
      <h2>Items</h2>
      <table className="console-table" tabIndex={0}>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" className="console-number">
              Quantity
            </th>
            <th scope="col">Reason</th>
            <th scope="col">Resolution</th>
            <th scope="col">Received</th>
          </tr>
        </thead>
        <tbody>
          {found.lines.map((line) => {
            const receivedId = `received-${line.index}`;
            const damagedId = `damaged-${line.index}`;
            return (
              <tr key={line.index} data-testid="return-line">
                <td>{line.title}</td>
                <td className="console-number">{line.quantity}</td>
                <td>{line.reason}</td>
                <td>{line.resolution}</td>
                <td>
                  {line.received !== null ? (
                    `${line.received} received, ${line.damaged ?? 0} damaged`
                  ) : found.canReceive ? (
                    <Form method="post" className="console-form console-form--inline">
                      {seen}
                      <input type="hidden" name="line" value={line.index} />
                      <div className="console-field">
                        <label htmlFor={receivedId}>Received</label>
                        <input
                          id={receivedId}
                          name="received"
                          inputMode="numeric"
                          size={4}
                          defaultValue={line.quantity}
                          {...invalidFieldProps(receivedId, errors?.[receivedId])}
                        />
                        <FieldError fieldId={receivedId} message={errors?.[receivedId]} />
                      </div>
                      <div className="console-field">
                        <label htmlFor={damagedId}>Damaged</label>
                        <input
                          id={damagedId}
                          name="damaged"
                          inputMode="numeric"
                          size={4}
                          defaultValue={0}
                          {...invalidFieldProps(damagedId, errors?.[damagedId])}
                        />
                        <FieldError fieldId={damagedId} message={errors?.[damagedId]} />
                      </div>
                      <button
                        type="submit"
                        name="intent"
                        value="receive"
                        className="console-button"
                        disabled={busy}
                        aria-label={`Mark received: ${line.title}`}
                      >
                        Mark received
                      </button>
                    </Form>
                  ) : (
                    "–"
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
