// A secret shown once (a new API key, an invitation or reset link): a read-only field and a copy button.
import { h } from "./ui.js";

export function shownOnce(label, value, explanation) {
  const output = h("input", { type: "text", readonly: true, value, "aria-label": label, class: "code" });
  const copy = h("button", { type: "button", class: "small" }, "Copy");
  copy.addEventListener("click", async () => {
    output.select();
    try {
      await navigator.clipboard.writeText(value);
      copy.textContent = "Copied";
    } catch {
      copy.textContent = "Select and copy it";
    }
  });
  return h("div", { class: "card once", role: "status" }, h("p", {}, explanation), output, h("p", {}, copy));
}
