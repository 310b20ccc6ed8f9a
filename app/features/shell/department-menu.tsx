import { startTransition, useEffect, useId, useRef, useState } from "react";
import { Link, useLocation } from "react-router";
import { departmentPath } from "../../../shared/listing";

export interface MenuDepartment {
  name: string;
  slug: string;
  children: { name: string; slug: string }[];
}

/**
 * The header's "All": without JavaScript (and until the page hydrates) a link to /departments; with it, a button that
 * shows and hides the departments below it (the disclosure pattern: Enter or Space opens it, Tab walks its links,
 * Escape closes it and returns to the button, and so does leaving it or following a link).
 */
export function DepartmentMenu({ departments }: { departments: readonly MenuDepartment[] }) {
  const [isHydrated, setHydrated] = useState(false);
  // Open on the page it was opened on: following one of its links (a new location) closes it.
  const location = useLocation();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const isOpen = openOn === location.key;
  const setOpen = (open: boolean) => setOpenOn(open ? location.key : null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  useEffect(() => {
    // A transition, as the carousel's: the button replaces the link without a long task after hydration.
    if (!isHydrated) startTransition(() => setHydrated(true));
  }, [isHydrated]);

  if (!isHydrated || departments.length === 0) {
    return (
      <Link to="/departments" className="site-header__all">
        <MenuIcon /> All
      </Link>
    );
  }
  return (
    <div
      className="site-header__all-menu"
      onKeyDown={(event) => {
        if (event.key === "Escape" && isOpen) {
          setOpen(false);
          buttonRef.current?.focus();
        }
      }}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <button ref={buttonRef} type="button" className="site-header__all" aria-expanded={isOpen} aria-controls={panelId} onClick={() => setOpen(!isOpen)}>
        <MenuIcon /> All
      </button>
      <div id={panelId} className="department-menu" hidden={!isOpen}>
        <p className="department-menu__heading">Shop by department</p>
        <ul>
          {departments.map((department) => (
            <li key={department.slug}>
              <Link to={departmentPath(department.slug)} className="department-menu__top">
                {department.name}
              </Link>
              {department.children.length > 0 ? (
                <ul>
                  {department.children.map((child) => (
                    <li key={child.slug}>
                      <Link to={departmentPath(child.slug)}>{child.name}</Link>
                    </li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
          <li>
            <Link to="/departments" className="department-menu__top">
              See all departments
            </Link>
          </li>
        </ul>
      </div>
    </div>
  );
}

function MenuIcon() {
  return (
    <svg aria-hidden="true" width="18" height="14" viewBox="0 0 18 14" fill="currentColor">
      <rect y="0" width="18" height="2" rx="1" />
      <rect y="6" width="18" height="2" rx="1" />
      <rect y="12" width="18" height="2" rx="1" />
    </svg>
  );
}
