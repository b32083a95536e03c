// A chatbot's webhooks: add (URL, events; the secret shown once), enable or disable, test, rotate, delete, and
// each webhook's latest deliveries with their status.
import { get, post, request } from "./api.js";
import { badge, busy, checkbox, clear, confirmDialog, field, formatDate, h, headRow, notice, tableWrap } from "./ui.js";

const EVENTS = [
  ["human_requested", "A user asked for a person"],
  ["live_chat_started", "An operator took a conversation over"],
  ["live_chat_ended", "An operator handed a conversation back"],
  ["variables_collected", "A message gave variable values"],
  ["feedback", "A user rated an answer"],
  ["source_failed", "A data source failed"],
];
const STATUS_KIND = { delivered: "ok", failed: "bad", pending: "busy" };

export async function webhooksSection(ctx) {
  const section = h("section", { "aria-labelledby": "webhooks-h" }, h("h2", { id: "webhooks-h" }, "Webhooks"));
  const list = h("div", {});
  const secretBox = h("div", {});
  const draw = async () => {
    const hooks = await get(`/chatbot/${ctx.chatbot.uuid}/webhooks`, { signal: ctx.signal });
    const cards = hooks.map((hook) => hookCard(hook, draw, secretBox));
    clear(list, ...(cards.length ? cards : [h("p", {}, "No webhooks yet.")]));
  };
  section.append(
    h(
      "p",
      { class: "hint" },
      "Events are POSTed as JSON, signed as Standard Webhooks sign (webhook-id, webhook-timestamp, " +
        "webhook-signature headers), and retried for about a day when your server fails.",
    ),
    secretBox,
    list,
    addForm(ctx, draw, secretBox),
  );
  try {
    await draw();
  } catch (error) {
    if (error.name === "AbortError") throw error;
    list.append(h("p", { role: "alert", class: "alert" }, `The webhooks could not be loaded: ${error.message}`));
  }
  return section;
}

function showSecret(box, hook) {
  const secret = h("input", { type: "text", readonly: true, value: hook.secret, class: "code", spellcheck: "false" });
  clear(
    box,
    h(
      "div",
      { class: "card", role: "status" },
      h("p", {}, `Signing secret of ${hook.url}: copy it now, it is not shown again.`),
      field("Secret", secret),
    ),
  );
  secret.focus();
  secret.select();
}

function addForm(ctx, draw, secretBox) {
  const note = notice();
  const url = h("input", { type: "url", required: true, maxlength: "2048", placeholder: "https://example.com/hooks" });
  const boxes = EVENTS.map(([name, label]) => [name, checkbox(`${label} (${name})`, true)]);
  const add = h("button", { type: "submit", class: "primary" }, "Add webhook");
  const form = h(
    "form",
    { class: "card", "data-needs": "manage" },
    h("h3", {}, "Add a webhook"),
    field("URL", url),
    h("fieldset", {}, h("legend", {}, "Events"), ...boxes.map(([, box]) => box.element)),
    add,
    note.element,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const events = boxes.filter(([, box]) => box.input.checked).map(([name]) => name);
    if (!events.length) return note.error("Choose at least one event.");
    await busy(add, note, async () => {
      const hook = await post(`/chatbot/${ctx.chatbot.uuid}/webhook/create`, { url: url.value.trim(), events });
      url.value = "";
      note.ok("Webhook added.");
      showSecret(secretBox, hook);
      await draw();
    });
  });
  return form;
}

function hookCard(hook, draw, secretBox) {
  const note = notice();
  const deliveries = h("div", {});
  const button = (label, action, kind = "") => {
    const element = h("button", { type: "button", class: kind }, label);
    element.addEventListener("click", () => busy(element, note, () => action(element)));
    return element;
  };
  const showDeliveries = async () => clear(deliveries, deliveryTable(await get(`/webhook/${hook.uuid}/deliveries`)));
  const actions = h(
    "div",
    { class: "actions" },
    button(hook.enabled ? "Disable" : "Enable", async () => {
      await post(`/webhook/${hook.uuid}/update`, { enabled: !hook.enabled });
      await draw();
    }),
    button("Send test", async () => {
      await post(`/webhook/${hook.uuid}/test`);
      note.ok("Test event queued: it is sent within seconds (Deliveries shows the outcome).");
      await showDeliveries();
    }),
    button("Deliveries", showDeliveries),
    button("Rotate secret", async () => {
      if (!(await confirmDialog("Replace the signing secret? The old one stops signing at once.", "Rotate"))) return;
      showSecret(secretBox, await post(`/webhook/${hook.uuid}/rotate-secret`));
    }),
    button(
      "Delete",
      async () => {
        if (!(await confirmDialog(`Delete the webhook ${hook.url} and its deliveries?`))) return;
        await request("DELETE", `/webhook/${hook.uuid}/delete`);
        await draw();
      },
      "danger",
    ),
  );
  return h(
    "div",
    { class: "card" },
    h("p", {}, h("strong", {}, hook.url), " ", badge(hook.enabled ? "enabled" : "disabled", hook.enabled ? "ok" : "")),
    h("p", { class: "hint" }, `Events: ${hook.events.join(", ")}`),
    actions,
    note.element,
    deliveries,
  );
}

function deliveryTable(rows) {
  if (!rows.length) return h("p", {}, "No deliveries yet.");
  const body = rows.map((row) =>
    h(
      "tr",
      {},
      h("td", {}, formatDate(row.created_at)),
      h("td", {}, row.event_type),
      h("td", {}, badge(row.status, STATUS_KIND[row.status] ?? "")),
      h("td", {}, String(row.attempts)),
      h("td", {}, row.last_status_code === null ? "" : String(row.last_status_code)),
      h("td", {}, row.last_error),
      h("td", {}, row.status === "pending" ? formatDate(row.next_attempt_at) : ""),
    ),
  );
  const table = h(
    "table",
    {},
    headRow(["Created", "Event", "Status", "Attempts", "HTTP", "Error", "Next attempt"]),
    h("tbody", {}, ...body),
  );
  return tableWrap(table, "Deliveries");
}
