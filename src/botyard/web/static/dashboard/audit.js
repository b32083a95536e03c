// The audit log (owners and admins): who changed what, when and from where; filters, pages, CSV and JSON downloads.
import { download, get } from "./api.js";
import { AuditObject } from "/static/shared/names.js";
import { busy, clear, field, formatDate, h, headRow, heading, notice, select, tableWrap } from "./ui.js";

const PAGE = 50;
const TYPES = [["", "Any"], ...Object.values(AuditObject).map((value) => [value, value.replace("_", " ")])];

/** Local calendar day bounds as ISO instants ("" when no date). */
const dayStart = (value) => (value ? new Date(`${value}T00:00:00`).toISOString() : "");
const dayEnd = (value) => (value ? new Date(`${value}T23:59:59`).toISOString() : "");

function actorOf(event) {
  const actor = event.actor;
  if (actor.key_prefix) return `API key ${actor.name ? `“${actor.name}” ` : ""}(${actor.key_prefix}…)`;
  return actor.email || "unknown";
}

export function render(ctx) {
  const note = notice();
  const from = h("input", { type: "date" });
  const to = h("input", { type: "date" });
  const actor = h("input", { type: "text", autocomplete: "off", placeholder: "name@example.com" });
  const kind = select(TYPES, "");
  const apply = h("button", { type: "submit", class: "primary" }, "Apply filters");
  const filters = h(
    "form",
    { class: "card inline-form", "aria-label": "Filters" },
    field("From", from),
    field("To", to),
    field("Actor", actor, "An email or an API key's prefix."),
    field("Object", kind),
    apply,
  );
  const exportCsv = h("button", { type: "button" }, "Download CSV");
  const exportJson = h("button", { type: "button" }, "Download JSON");
  const exports = h("div", { class: "actions", "aria-label": "Download" }, exportCsv, exportJson,
    h("p", { class: "hint" }, "Downloads every event the filters pick, newest first."));
  const body = h("tbody");
  const table = h(
    "table",
    {},
    h("caption", {}, "Events, newest first"),
    headRow(["When and from where", "Who and their role", "What"]),
    body,
  );
  const more = h("button", { type: "button" }, "Show more");
  const count = h("p", { class: "hint" });
  let shown = 0;

  const query = () => ({
    since: dayStart(from.value),
    until: dayEnd(to.value),
    actor: actor.value.trim(),
    object_type: kind.value,
  });

  // Three columns, each with a line under it, so that a phone's 360 px hold the table without sideways scrolling.
  function row(event) {
    return h(
      "tr",
      { "data-uuid": event.uuid },
      h("td", {}, formatDate(event.at), h("span", { class: "sub", title: event.user_agent }, event.address)),
      h("td", { class: "audit-cell" }, actorOf(event), h("span", { class: "sub" }, event.actor.role || "no role")),
      h("td", { class: "audit-cell" }, event.summary || `${event.object_type} ${event.action}`),
    );
  }

  // Each load (the page's first, each Apply) is a generation: a reply of an older one that comes late (the first
  // load's, after the filters were applied) is dropped, not appended to the newer one's rows.
  let generation = 0;

  async function showMore(expected = generation) {
    const page = await get("/account/audit", { query: { ...query(), limit: PAGE, offset: shown }, signal: ctx.signal });
    if (expected !== generation) return;
    shown += page.events.length;
    body.append(...page.events.map(row));
    more.hidden = !page.more;
    count.textContent = shown ? `Showing ${shown}.` : "No events match.";
  }

  async function load() {
    generation += 1;
    shown = 0;
    clear(body);
    await showMore(generation);
  }

  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(apply, note, load);
  });
  more.addEventListener("click", () => busy(more, note, showMore));
  const exportAs = (format) => () =>
    download("/account/audit/export", `audit.${format}`, { query: { ...query(), format } });
  exportCsv.addEventListener("click", () => busy(exportCsv, note, exportAs("csv")));
  exportJson.addEventListener("click", () => busy(exportJson, note, exportAs("json")));

  ctx.main.append(
    heading("Audit log"),
    h("p", { class: "lead" }, "Who changed what in this account, and who signed in: when, and from which address."),
    filters,
    exports,
    note.element,
    tableWrap(table, "Audit log"),
    count,
    more,
  );
  return load();
}
