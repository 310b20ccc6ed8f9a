// The dashboard's figures: one labelled list of amounts and counts, drawn the same way for the period's sales, basket
// recovery, store credit and gift cards.

import type { ReactNode } from "react";

/** One figure: its label and its value, formatted by the loader. */
export interface Figure {
  label: string;
  value: string;
}

/** The figures as a definition list, each label over its value. */
export function FigureList({ figures, testId }: { figures: Figure[]; testId?: string }) {
  return (
    <dl className="console-figures" data-testid={testId}>
      {figures.map((figure) => (
        <div key={figure.label}>
          <dt>{figure.label}</dt>
          <dd>{figure.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A titled section of figures with its hint underneath (what they count, and a link to their console page). */
export function FigureSection({
  id,
  title,
  figures,
  testId,
  children,
}: {
  id: string;
  title: string;
  figures: Figure[];
  testId?: string;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <FigureList figures={figures} testId={testId} />
      <p className="console-hint">{children}</p>
    </section>
  );
}
