// Keeping what a shopper chose or typed before the page's scripts took over a form whose fields React draws from state,
// so hydration never throws it away.

import { useEffect, useRef } from "react";

/**
 * What a shopper chose or typed in a form before the page's scripts took it over, for the forms whose fields React
 * draws from state (`<form data-early="{key}">`): the product's options, a basket line's quantity, the delivery
 * address's country. A field React leaves to the browser (defaultValue) keeps its input by itself; a field drawn
 * from state is drawn with the server's value as the page hydrates, and the state the page then acts on is the
 * server's. Each such form takes its early input once, as it goes live (useEarlyInput), and makes it its own.
 *
 * Input is read from the page as this module is first evaluated (a field whose value is not the one it was drawn
 * with), then as it is made until its form is live. The listeners run before React's (added first, on the same
 * document, capturing): a choice's own event makes React hydrate that field at once and draw the server's value
 * back before any handler of React's reads it. For the page the browser opened this module runs before React
 * hydrates it: React Router imports the page's route modules first, and those import the forms that use it.
 */
const early = new Map<string, Map<string, string>>();
/** The forms that took their early input: what is chosen in them from then on is theirs. */
const live = new Set<string>();

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

function isField(target: unknown): target is Field {
  return (
    target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement
  );
}

/** Whether the shopper changed the field from what the page was drawn with. */
function isChanged(field: Field): boolean {
  if (field instanceof HTMLSelectElement)
    return Array.from(field.options).some((option) => option.selected !== option.defaultSelected);
  if (field instanceof HTMLInputElement && (field.type === "radio" || field.type === "checkbox"))
    return field.checked !== field.defaultChecked;
  return field.value !== field.defaultValue;
}

function remember(field: Field): void {
  const key = field.form?.dataset.early;
  if (key === undefined || live.has(key) || field.name === "") return;
  const isToggle = field instanceof HTMLInputElement && (field.type === "radio" || field.type === "checkbox");
  // An unchecked radio says nothing: the one checked in its place says what was chosen.
  if (isToggle && field.type === "radio" && !field.checked) return;
  const values = early.get(key) ?? new Map<string, string>();
  values.set(field.name, isToggle && !field.checked ? "" : field.value);
  early.set(key, values);
}

function keepEarlyInput(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>("form[data-early]")) {
    for (const field of Array.from(form.elements)) if (isField(field) && isChanged(field)) remember(field);
  }
  const onInput = (event: Event) => {
    if (isField(event.target)) remember(event.target);
  };
  document.addEventListener("input", onInput, true);
  document.addEventListener("change", onInput, true);
}

/**
 * Calls `apply` once, as the form `key` (data-early) goes live, with the fields the shopper set before, by name, if
 * any: its later input is the form's own.
 */
export function useEarlyInput(key: string, apply: (values: ReadonlyMap<string, string>) => void): void {
  const applyRef = useRef(apply);
  useEffect(() => {
    applyRef.current = apply;
  });
  useEffect(() => {
    live.add(key);
    const values = early.get(key);
    early.delete(key);
    if (values) applyRef.current(values);
  }, [key]);
}

if (typeof document !== "undefined") keepEarlyInput();
