// Disclosure menus of the header (the phone's "Menu", the desktop's "More" and account menus): a real button with
// aria-expanded over a panel it controls. Escape closes and gives focus back to the button; so do a click elsewhere
// and a navigation (the router calls closeMenus).
import { uid } from "./ui.js";

const open = new Set();

/** Makes `button` open and close `panel`; the state is on `container` (data-open) for the stylesheet. */
export function disclosure(button, panel, container = panel) {
  panel.id ||= uid("menu");
  button.setAttribute("aria-controls", panel.id);
  button.setAttribute("aria-expanded", "false");
  const menu = {
    set(expanded) {
      button.setAttribute("aria-expanded", String(expanded));
      container.dataset.open = String(expanded);
      if (expanded) open.add(menu);
      else open.delete(menu);
    },
    contains: (node) => container.contains(node),
    button,
  };
  button.addEventListener("click", () => menu.set(button.getAttribute("aria-expanded") !== "true"));
  container.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || button.getAttribute("aria-expanded") !== "true") return;
    event.stopPropagation();
    menu.set(false);
    button.focus();
  });
  return menu;
}

/** Closes every open menu (after a navigation). */
export function closeMenus() {
  for (const menu of [...open]) menu.set(false);
}

document.addEventListener("click", (event) => {
  for (const menu of [...open]) if (!menu.contains(event.target)) menu.set(false);
});
