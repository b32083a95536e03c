// An agent's tool functions: HTTP calls the model may make (it fills only the parameters).
import { get, post } from "./api.js";
import { llmOnly } from "./service.js";
import { busy, checkbox, clear, confirmDialog, field, h, headRow, jsonField, notice, select, tableWrap } from "./ui.js";

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH"];
const EMPTY_PARAMETERS = { type: "object", properties: {}, required: [] };

export function functionsSection(ctx, agent, offline = false) {
  const note = notice();
  const body = h("tbody");
  const table = h(
    "table",
    {},
    h("caption", {}, "Tool functions"),
    headRow(["Name", "Method", "URL", "Enabled", "Actions"]),
    body,
  );
  const empty = h("p", { class: "empty" }, "No tool functions.");
  let editing = null;

  const name = h("input", { type: "text", required: true, pattern: "[A-Za-z0-9_\\-]{1,64}" });
  const description = h("textarea", { rows: "2", maxlength: "1023" });
  const method = select(METHODS, "GET");
  const url = h("input", { type: "url", required: true, placeholder: "https://api.example.com/orders" });
  const parameters = jsonField("Parameters (JSON schema)", EMPTY_PARAMETERS);
  const headers = jsonField(
    "Headers (JSON)",
    {},
    "Sent with every call; the model never sees them. Saved values show masked: leave a mask as it is to keep its value.",
  );
  const enabled = checkbox("Function enabled", true);
  const formTitle = h("h3", {}, "New tool function");
  const submit = h("button", { type: "submit", class: "primary" }, "Add function");
  const cancel = h("button", { type: "button", hidden: true }, "Cancel edit");
  const form = h(
    "form",
    { class: "card", "data-needs": "knowledge" },
    formTitle,
    h("div", { class: "row" }, field("Function name", name, "Letters, digits, _ and -."), field("Method", method)),
    field("Function URL", url),
    field("Function description", description, "Tells the model when to call it."),
    parameters.element,
    headers.element,
    enabled.element,
    h("div", { class: "actions" }, submit, cancel),
  );

  function fillForm(fn) {
    editing = fn;
    name.value = fn?.name ?? "";
    description.value = fn?.description ?? "";
    method.value = fn?.method ?? "GET";
    url.value = fn?.external_url ?? "";
    parameters.area.value = JSON.stringify(fn?.parameters ?? EMPTY_PARAMETERS, null, 2);
    headers.area.value = JSON.stringify(fn?.headers ?? {}, null, 2);
    enabled.input.checked = fn ? Boolean(fn.enabled) : true;
    formTitle.textContent = fn ? `Edit ${fn.name}` : "New tool function";
    submit.textContent = fn ? "Save function" : "Add function";
    cancel.hidden = !fn;
  }

  async function load() {
    const fresh = await get(`/agent/${agent.uuid}`, { signal: ctx.signal });
    const functions = fresh.tool_functions ?? [];
    clear(body, ...functions.map(row));
    empty.hidden = functions.length > 0;
    table.hidden = functions.length === 0;
  }

  function row(fn) {
    const toggle = h("input", { type: "checkbox", checked: Boolean(fn.enabled), "aria-label": `${fn.name} enabled` });
    toggle.addEventListener("change", async () => {
      const saved = await busy(toggle, note, () => post(`/function/${fn.uuid}/update`, { enabled: toggle.checked }));
      if (saved) note.ok(`${fn.name} ${saved.enabled ? "enabled" : "disabled"}.`);
      else toggle.checked = !toggle.checked;
    });
    const edit = h("button", { type: "button", class: "small", "aria-label": `Edit ${fn.name}` }, "Edit");
    edit.addEventListener("click", () => {
      fillForm(fn);
      name.focus();
    });
    const remove = h("button", { type: "button", class: "small danger", "aria-label": `Delete ${fn.name}` }, "Delete");
    remove.addEventListener("click", async () => {
      if (!(await confirmDialog(`Delete the tool function “${fn.name}”?`))) return;
      await busy(remove, note, async () => {
        await post(`/function/${fn.uuid}/delete`);
        if (editing?.uuid === fn.uuid) fillForm(null);
        note.ok(`Deleted ${fn.name}.`);
        await load();
      });
    });
    return h(
      "tr",
      {},
      h("th", { scope: "row" }, fn.name, fn.description ? h("span", { class: "sub" }, fn.description) : null),
      h("td", {}, fn.method),
      h("td", { class: "url" }, fn.external_url),
      h("td", {}, toggle),
      h("td", { class: "actions" }, edit, remove),
    );
  }

  cancel.addEventListener("click", () => fillForm(null));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(submit, note, async () => {
      const data = {
        name: name.value.trim(),
        description: description.value,
        method: method.value,
        external_url: url.value.trim(),
        parameters: parameters.read(EMPTY_PARAMETERS),
        headers: headers.read({}),
        enabled: enabled.input.checked,
      };
      const saved = editing
        ? await post(`/function/${editing.uuid}/update`, data)
        : await post(`/agent/${agent.uuid}/function/create`, data);
      note.ok(`${editing ? "Saved" : "Added"} ${saved.name}.`);
      fillForm(null);
      await load();
    });
  });

  const section = h(
    "section",
    { "aria-labelledby": "functions-h" },
    h("h2", { id: "functions-h" }, "Tool functions"),
    h("p", { class: "hint" }, "Used with an LLM provider: the model may call these with the parameters it fills."),
    note.element,
    empty,
    tableWrap(table, "Tool functions"),
    form,
  );
  if (offline) llmOnly(form);
  load().catch((error) => error.name !== "AbortError" && note.error(error));
  return section;
}
