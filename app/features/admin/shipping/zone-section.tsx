// One shipping zone on the shipping page: its own form, its methods (each folded, opened when its form was refused)
// with their Remove buttons, and the form that adds a method to it.

import { Form } from "react-router";
import { MethodForm, ZoneForm, type ShippingFormAnswer } from "./shipping-forms";

/** A zone as the loader words it, with its methods' fields as typed into their forms. */
export interface ShippingZoneView {
  id: string;
  name: string;
  countries: string;
  states: string;
  methods: {
    id: string;
    name: string;
    estimate: string;
    price: string;
    priceText: string;
    freeOver: string;
    weightTiers: string;
  }[];
}

/** The zone's section; `answerFor` gives a refused form of the page its errors and what was typed. */
export function ZoneSection({
  zone,
  answerFor,
  isBusy,
}: {
  zone: ShippingZoneView;
  answerFor: (form: string) => ShippingFormAnswer;
  isBusy: boolean;
}) {
  const zoneAnswer = answerFor(`zone-${zone.id}`);
  return (
    <section className="console-section" aria-labelledby={`zone-${zone.id}`}>
      <h2 id={`zone-${zone.id}`}>{zone.name}</h2>
      <ZoneForm
        formKey={`zone-${zone.id}`}
        zoneId={zone.id}
        values={zoneAnswer?.errors ? zoneAnswer.values : zone}
        errors={zoneAnswer?.errors}
        isBusy={isBusy}
      />
      <Form method="post" className="console-form--inline">
        <input type="hidden" name="id" value={zone.id} />
        <button
          type="submit"
          name="intent"
          value="remove-zone"
          className="console-link-button"
          disabled={isBusy}
          aria-label={`Remove zone ${zone.name}`}
        >
          Remove zone
        </button>
      </Form>
      <h3>Methods</h3>
      {zone.methods.length === 0 ? <p>No methods: nobody in this zone can pay until you add one.</p> : null}
      {zone.methods.map((method) => {
        const answer = answerFor(`method-${method.id}`);
        return (
          <details key={method.id} className="console-method" open={Boolean(answer?.errors)}>
            <summary>
              {method.name} · {method.estimate || "no estimate"} · {method.priceText}
              {method.freeOver ? ` · free over $${method.freeOver}` : ""}
            </summary>
            <MethodForm
              formKey={`method-${method.id}`}
              zoneId={zone.id}
              methodId={method.id}
              values={answer?.errors ? answer.values : method}
              errors={answer?.errors}
              isBusy={isBusy}
            />
            <Form method="post">
              <input type="hidden" name="id" value={method.id} />
              <button
                type="submit"
                name="intent"
                value="remove-method"
                className="console-link-button"
                disabled={isBusy}
                aria-label={`Remove method ${method.name}`}
              >
                Remove method
              </button>
            </Form>
          </details>
        );
      })}
      <h3>Add a method to {zone.name}</h3>
      <MethodForm
        formKey={`add-method-${zone.id}`}
        zoneId={zone.id}
        values={answerFor(`add-method-${zone.id}`)?.errors ? answerFor(`add-method-${zone.id}`)!.values : {}}
        errors={answerFor(`add-method-${zone.id}`)?.errors}
        isBusy={isBusy}
      />
    </section>
  );
}
