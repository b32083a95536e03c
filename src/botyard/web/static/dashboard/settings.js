// The instance's settings (owners and admins of its first account): the language model, what fetches may reach, and
// the origins allowed to call the API. Saved here, they take effect without a restart; a setting the environment
// sets is shown read-only with its variable (the environment wins: change it there).
import { get, post } from "./api.js";
import { badge, busy, field, h, heading, notice } from "./ui.js";

const SECTIONS = [
  ["llm", "Language model", "An OpenAI-compatible API (OpenAI, Ollama, vLLM…). Without a base URL the offline answerer answers."],
  ["fetching", "Fetching", "What sources, crawls, tool calls and webhooks may reach besides public addresses on ports 80 and 443."],
  ["cors", "Browser access (CORS)", "Websites whose pages may call this API from the browser (the widget has its own list per chatbot)."],
];
const HINTS = {
  llm_base_url: "The API root, e.g. http://localhost:11434/v1. Empty: the offline answerer.",
  llm_api_key:
    "Sent as a Bearer token; stored encrypted and never shown again. Leave empty to keep the saved key (a new base URL needs the key again).",
  llm_models: "One per line: catalogue name=provider model, e.g. gpt-4o-mini-4k=llama3.1:8b.",
  llm_default_model: "The provider model for every name not in the map (empty: each name's base).",
  egress_allowlist: "One per line: host names or addresses/CIDRs reachable although private, on any port (10.0.0.0/8).",
  egress_allowed_ports: "Comma-separated (empty: 80, 443).",
  cors_origins: "One per line: scheme, host and port (https://shop.example).",
};
const SOURCES = { environment: "set by the environment", dashboard: "saved here", default: "default" };
const lines = (text) => text.split("\n").map((item) => item.trim()).filter(Boolean);

/** The control of one setting, and how to read it back as the API takes it (undefined: leave it out). */
function control(setting) {
  const name = setting.name;
  const value = setting.value;
  if (setting.secret) {
    const input = h("input", { type: "password", name, autocomplete: "off", spellcheck: "false" });
    input.placeholder = setting.is_set ? `saved (ends in ${setting.last4 ?? "…"})` : "not set";
    const remove = h("input", { type: "checkbox", id: `${name}-remove` });
    const removeRow = h("div", { class: "field check" }, remove, h("label", { for: remove.id }, "Remove the saved key"));
    removeRow.hidden = !setting.is_set || setting.locked;
    return { input, extra: removeRow, read: () => (remove.checked ? "" : input.value.trim() || undefined) };
  }
  if (name === "llm_models") {
    const text = Object.entries(value ?? {}).map(([key, model]) => `${key}=${model}`).join("\n");
    const input = h("textarea", { name, rows: "3", spellcheck: "false" }, text);
    const read = () => {
      const pairs = lines(input.value).map((line) => line.split("=").map((part) => part.trim()));
      return pairs.length ? Object.fromEntries(pairs.map(([key, ...rest]) => [key, rest.join("=")])) : null;
    };
    return { input, read };
  }
  if (Array.isArray(value) && name === "egress_allowed_ports") {
    const input = h("input", { type: "text", name, inputmode: "numeric", value: value.join(", ") });
    const read = () => {
      const ports = input.value.split(",").map((item) => item.trim()).filter(Boolean);
      return ports.length ? ports.map((port) => (/^\d+$/.test(port) ? Number(port) : port)) : null;
    };
    return { input, read };
  }
  if (Array.isArray(value)) {
    const input = h("textarea", { name, rows: "3", spellcheck: "false" }, value.join("\n"));
    return { input, read: () => (lines(input.value).length ? lines(input.value) : null) };
  }
  const input = h("input", { type: name === "llm_base_url" ? "url" : "text", name, value: value ?? "", spellcheck: "false" });
  return { input, read: () => input.value.trim() || null };
}

function settingField(setting, controls) {
  const made = control(setting);
  const hint = setting.locked
    ? `Set by the environment (${setting.env}): change it there. The environment wins over this page.`
    : `${HINTS[setting.name] ?? ""} Variable: ${setting.env}.`;
  if (setting.locked) {
    made.input.readOnly = true;
    made.input.setAttribute("aria-readonly", "true");
  } else controls.push([setting.name, made.read]);
  const wrapper = field(setting.label, made.input, hint);
  wrapper.dataset.setting = setting.name;
  wrapper.querySelector("label").after(badge(SOURCES[setting.source], setting.locked ? "busy" : ""));
  if (made.extra) wrapper.append(made.extra);
  return wrapper;
}

function values(controls) {
  const body = {};
  for (const [name, read] of controls) {
    const value = read();
    if (value !== undefined) body[name] = value;
  }
  return body;
}

function section(id, title, lead, settings, reload) {
  const note = notice();
  const controls = [];
  const fields = settings.filter((item) => item.section === id).map((item) => settingField(item, controls));
  const save = h("button", { type: "submit", class: "primary" }, `Save ${title.split(" ")[0].toLowerCase()} settings`);
  const actions = h("div", { class: "button-row" }, save);
  const form = h(
    "form",
    { class: "card", "aria-labelledby": `${id}-h`, "data-section": id },
    h("h2", { id: `${id}-h` }, title),
    h("p", { class: "hint section-lead" }, lead),
    ...fields,
    actions,
    note.element,
  );
  save.hidden = controls.length === 0;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(save, note, async () => {
      await post("/service/settings", values(controls));
      window.dispatchEvent(new CustomEvent("botyard:service-changed"));
      await reload(`${title} saved: in use now.`, id);
    });
  });
  if (id === "llm") {
    const test = h("button", { type: "button" }, "Test connection");
    const reply = h("blockquote", { class: "model-reply", hidden: true });
    actions.append(test);
    form.append(reply);
    test.addEventListener("click", () =>
      busy(test, note, async () => {
        reply.hidden = true;
        note.ok("Asking the model…");
        const result = await post("/service/settings/llm/test", values(controls));
        if (!result.ok) {
          note.error(result.error);
          return;
        }
        note.ok(`${result.model} at ${result.host} replied:`);
        reply.textContent = result.reply || "(an empty reply)";
        reply.hidden = false;
      }),
    );
  }
  return { form, note };
}

export async function render(ctx) {
  const holder = h("div", { class: "settings-sections" });
  const top = notice();
  ctx.main.append(
    heading("Settings"),
    h("p", { class: "lead" }, "Settings of this whole instance. A change takes effect at once, without a restart."),
    top.element,
    holder,
  );

  async function load(message = "", sectionId = "") {
    let view;
    try {
      view = await get("/service/settings", { signal: ctx.signal });
    } catch (error) {
      if (error.name === "AbortError") return;
      top.error(error.status === 404 ? "These settings belong to the instance's own account: its owner and admins change them." : error);
      return;
    }
    const made = SECTIONS.map(([id, title, lead]) => section(id, title, lead, view.settings, load));
    holder.replaceChildren(...made.map((item) => item.form));
    const shown = made[SECTIONS.findIndex(([id]) => id === sectionId)];
    if (message && shown) shown.note.ok(message);
  }
  await load();
}
