// The console's side navigation: the sections the signed-in member of staff may open, the current one marked.

import { NavLink } from "react-router";

/** The console's sections the signed-in member of staff may open; the current one is marked with aria-current="page". */
export function ConsoleNav({ sections }: { sections: readonly { to: string; label: string }[] }) {
  return (
    <nav className="console-nav" aria-label="Console">
      <ul>
        {sections.map((section) => (
          <li key={section.to}>
            {/* `end`: the dashboard (/admin) is not current on every page under it. */}
            <NavLink to={section.to} className="console-nav__link" end={section.to === "/admin"}>
              {section.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
