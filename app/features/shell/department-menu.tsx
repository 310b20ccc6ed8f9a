// The header's "All": a link to /departments without JavaScript, a disclosure of the departments with it.

import { useRef, useState, useSyncExternalStore } from "react";
import { Link, useLocation } from "react-router";
import { departmentPath } from "#shared/departments";

export interface MenuDepartment {
  name: string;
  slug: string;
  children: { name: string; slug: string }[];
}

const subscribeToNothing = () => () => {};

/**
 * The header's "All": without JavaScript (and until the page hydrates) a link to /departments; with it, a button that
 * shows and hides the departments below it (the disclosure pattern: Enter or Space opens it, Tab walks its links,
 * Escape closes it and returns to the button; following a link closes it). Kept small: it is on every page's script.
 */
export function DepartmentMenu({ departments }: { departments: readonly MenuDepartment[] }) {
  // True in the browser, false on the server and while hydrating (a few elements re-render after hydration).
  const isHydrated = useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
  // Open on the page it was opened on: a new location (a followed link) closes it.
  const { key } = useLocation();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const isOpen = openOn === key;
  const buttonRef = useRef<HTMLButtonElement>(null);

  if (!isHydrated || departments.length === 0) {
    return (
      <Link to="/departments" className="site-header__all">
        All
      </Link>
    );
  }
  return (
    <div
      className="site-header__all-menu"
      onKeyDown={(event) => {
        if (event.key === "Escape" && isOpen) {
          setOpenOn(null);
          buttonRef.current?.focus();
        }
      }}
    >
      <button
        ref={buttonRef}
        type="button"
        className="site-header__all"
        aria-expanded={isOpen}
        aria-controls="department-menu"
        onClick={() => setOpenOn(isOpen ? null : key)}
      >
        All
      </button>
      <ul id="department-menu" className="department-menu" hidden={!isOpen}>
        {departments.map((department) => (
          <li key={department.slug}>
            <Link to={departmentPath(department.slug)} className="department-menu__top">
              {department.name}
            </Link>
            {department.children.map((child) => (
              <Link key={child.slug} to={departmentPath(child.slug)}>
                {child.name}
              </Link>
            ))}
          </li>
        ))}
      </ul>
    </div>
  );
}
