import { NavLink } from "react-router";

/** The console's sections, in the side navigation; the current one is marked with aria-current="page". */
const SECTIONS: readonly { to: string; label: string }[] = [
  { to: "/admin", label: "Dashboard" },
  { to: "/admin/orders", label: "Orders" },
  { to: "/admin/products", label: "Products" },
  { to: "/admin/reviews", label: "Reviews" },
  { to: "/admin/departments", label: "Departments" },
  { to: "/admin/shipping", label: "Shipping" },
  { to: "/admin/taxes", label: "Taxes" },
  { to: "/admin/promotions", label: "Promotions" },
  { to: "/admin/recovery", label: "Basket reminders" },
  { to: "/admin/outbox", label: "Outbox" },
  { to: "/admin/operators", label: "Operators" },
  { to: "/admin/audit", label: "Audit log" },
];

export function ConsoleNav() {
  return (
    <nav className="console-nav" aria-label="Console">
      <ul>
        {SECTIONS.map((section) => (
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
