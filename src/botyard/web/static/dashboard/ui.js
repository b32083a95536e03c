// Small DOM helpers shared by the pages. Text always goes in as text (textContent), never as HTML.

let counter = 0;
export const uid = (prefix = "f") => `${prefix}-${++counter}`;

/** h("button", {class: "x", onclick: fn, "aria-label": "..."}, "text", child...) */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "text") element.textContent = value;
    else if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (["value", "checked", "disabled", "hidden", "type", "min", "max", "step", "required"].includes(name)) {
      element[name] = value;
    } else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

export function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

export function clear(element, ...children) {
  element.replaceChildren();
  return append(element, children);
}

/** A labelled form control: returns the wrapper; the control keeps its own id (made when missing). */
export function field(label, control, hint = "") {
  control.id ||= uid();
  const wrapper = h("div", { class: "field" }, h("label", { for: control.id }, label), control);
  if (hint) {
    const hintId = uid("hint");
    control.setAttribute("aria-describedby", hintId);
    wrapper.append(h("p", { class: "hint", id: hintId }, hint));
  }
  return wrapper;
}

export function checkbox(label, checked = false, props = {}) {
  const input = h("input", { type: "checkbox", checked, ...props });
  input.id ||= uid();
  return { input, element: h("div", { class: "field check" }, input, h("label", { for: input.id }, label)) };
}

export function select(options, value, props = {}) {
  const element = h("select", props);
  for (const option of options) {
    const [optionValue, text] = Array.isArray(option) ? option : [option, option];
    element.append(h("option", { value: optionValue }, text));
  }
  if (value !== undefined) element.value = value;
  return element;
}

/** A page heading that takes focus after navigation. */
export function heading(text, level = 1) {
  return h(`h${level}`, { tabindex: level === 1 ? "-1" : undefined }, text);
}

/**
 * Status messages: success and progress in role=status, failures in role=alert.
 * notice.ok("Saved."), notice.error(err), notice.clear()
 */
export function notice() {
  const status = h("p", { role: "status", class: "status" });
  const alert = h("p", { role: "alert", class: "alert" });
  const element = h("div", { class: "notices" }, status, alert);
  return {
    element,
    ok(message) {
      alert.textContent = "";
      status.textContent = message;
    },
    error(error) {
      status.textContent = "";
      alert.textContent = typeof error === "string" ? error : error?.message || "Something went wrong.";
    },
    clear() {
      status.textContent = "";
      alert.textContent = "";
    },
  };
}

/** Runs `action` with the button disabled; failures go to `note.error`. Resolves to the action's value. */
export async function busy(button, note, action) {
  button.disabled = true;
  try {
    return await action();
  } catch (error) {
    if (error?.name !== "AbortError") note?.error(error);
    return undefined;
  } finally {
    button.disabled = false;
  }
}

/** A modal confirmation (<dialog>): resolves true when the owner confirms; `extra` (a checkbox...) goes above the
 * buttons, for the caller to read once it resolves. */
export function confirmDialog(message, confirmLabel = "Delete", extra = null) {
  return new Promise((resolve) => {
    const title = uid("dlg");
    const dialog = h(
      "dialog",
      { class: "confirm", "aria-labelledby": title },
      h("p", { id: title }, message),
      extra,
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", class: "danger", onclick: () => dialog.close("yes") }, confirmLabel),
        h("button", { type: "button", onclick: () => dialog.close("no") }, "Cancel"),
      ),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "yes");
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** What the caller's role may not change, shown read-only: inside a disabled fieldset every control is disabled, those
 * a section adds once loaded too. `allowed`: the role may change it (then `element` is returned as it is). */
export function lockedUnless(allowed, element) {
  return allowed ? element : h("fieldset", { class: "locked", disabled: true }, element);
}

/** The reason beside controls shown read-only: "Your role (operator) cannot change settings: <who> can." */
export function readOnlyNote(me, what, who) {
  const role = me?.role ?? "viewer";
  return h("p", { class: "read-only-note", role: "note" }, `Your role (${role}) cannot change ${what}: ${who} can.`);
}

/** A keyboard-reachable region around a data table. On a phone (dashboard.css) each row is a card: its first cell on
 * top, the others on lines of their own, each after its column's name (data-label, kept up to date here as pages
 * redraw their rows), so no column is cut off and the page never scrolls sideways. */
export function tableWrap(table, label) {
  labelCells(table);
  new MutationObserver(() => labelCells(table)).observe(table, { childList: true, subtree: true });
  return h("div", { class: "table-wrap", role: "region", "aria-label": label, tabindex: "0" }, table);
}

function labelCells(table) {
  const names = [];
  for (const cell of table.tHead?.rows[0]?.cells ?? []) {
    for (let span = 0; span < cell.colSpan; span += 1) names.push(cell.textContent.trim());
  }
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      let column = 0;
      for (const cell of row.cells) {
        const name = cell.colSpan === 1 ? names[column] : "";
        // A row's header (its first cell) names the row itself: it goes on top, without a column name.
        const wanted = name && !(cell.tagName === "TH" && column === 0) ? name : null;
        if (wanted !== cell.getAttribute("data-label")) {
          if (wanted) cell.setAttribute("data-label", wanted);
          else cell.removeAttribute("data-label");
        }
        column += cell.colSpan;
      }
    }
  }
}

export function formatDate(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function parseJson(text, fallback) {
  if (!text.trim()) return fallback;
  return JSON.parse(text);
}

/** A JSON textarea that validates as it is typed (aria-invalid and a message); `.read()` throws on bad JSON. */
export function jsonField(label, value, hint = "") {
  const area = h("textarea", { rows: "5", class: "code", spellcheck: "false" });
  area.value = JSON.stringify(value, null, 2);
  const wrapper = field(label, area, hint);
  const message = h("p", { class: "field-error", id: uid("err") });
  wrapper.append(message);
  const check = () => {
    try {
      parseJson(area.value, null);
      area.removeAttribute("aria-invalid");
      area.removeAttribute("aria-errormessage");
      message.textContent = "";
      return true;
    } catch (error) {
      area.setAttribute("aria-invalid", "true");
      area.setAttribute("aria-errormessage", message.id);
      message.textContent = `${label}: not valid JSON (${error.message})`;
      return false;
    }
  };
  area.addEventListener("input", check);
  return {
    element: wrapper,
    area,
    read(fallback) {
      if (!check()) throw new Error(message.textContent);
      return parseJson(area.value, fallback);
    },
  };
}

/** Lines of a textarea, trimmed, blank ones dropped. */
export const lines = (text) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

export function badge(text, kind = "") {
  return h("span", { class: `badge ${kind}`.trim() }, text);
}

export function headRow(names) {
  return h("thead", {}, h("tr", {}, ...names.map((text) => h("th", { scope: "col" }, text))));
}
