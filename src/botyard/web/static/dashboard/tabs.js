// A page in sections shown one at a time (the chatbot page): each section is a link with its own address
// (`<base>/<key>`), so a link opens one, Back returns to the one before, and the router keeps the page while only
// the section changes (ctx.onRoute).
import { h } from "./ui.js";

/** sections: [{ key, label, element }]; the first is shown when the address names none (or one unknown). */
export function tabbed(base, sections, label) {
  const links = sections.map(({ key, label: text }) => h("a", { href: `${base}/${key}`, "data-tab": key }, text));
  const nav = h("nav", { class: "tabs", "aria-label": label }, h("ul", {}, ...links.map((link) => h("li", {}, link))));
  const panels = sections.map(({ key, element }) => h("div", { class: "tab-panel", "data-tab": key }, element));
  return {
    nav,
    panels,
    /** Shows the section `key` (the first one when there is none such). */
    show(key) {
      const chosen = sections.some((section) => section.key === key) ? key : sections[0].key;
      for (const link of links) {
        if (link.dataset.tab === chosen) link.setAttribute("aria-current", "page");
        else link.removeAttribute("aria-current");
      }
      for (const panel of panels) panel.hidden = panel.dataset.tab !== chosen;
    },
  };
}
