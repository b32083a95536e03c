// The knowledge table: sources with live statuses (polled every second while any is still processing), selection,
// rename, view (chunks), Q&A edit and delete of one; tags, re-scrape and delete of many at once.
import { SourceStatus, SourceType } from "/static/shared/names.js";
import { get, post } from "./api.js";
import { openSourcePanel } from "./source-panel.js";
import { badge, busy, clear, confirmDialog, h, notice, select, tableWrap } from "./ui.js";

const TYPES = { [SourceType.QA]: "Q&A", [SourceType.LINK]: "URL", [SourceType.UPLOAD]: "File" };
const POLL_MS = 1000;
export const isFinal = (status) => status === SourceStatus.SUCCESS || status.startsWith("error");

/** `onChange(sources, tags)` runs after every read, whatever caused it (a tagging, the status polling, a page). */
export function sourcesTable(ctx, onChange = () => {}) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const rows = new Map(); // uuid -> {tr, source, parts}
  const selected = new Set();
  let sources = [];
  let tags = [];
  let timer = 0;
  let stopped = false;

  const body = h("tbody");
  const all = h("input", { type: "checkbox", "aria-label": "Select all sources" });
  const heads = ["Title", "Type", "Status", "Tags", "Tokens", "Actions"].map((text) => h("th", { scope: "col" }, text));
  const table = h(
    "table",
    { class: "sources" },
    h("caption", {}, "Sources"),
    h("thead", {}, h("tr", {}, h("td", { class: "pick" }, all), ...heads)),
    body,
  );
  const empty = h("p", { class: "empty" }, "No knowledge yet: add Q&A pairs, web pages or files above.");
  const progress = h("p", { role: "status", class: "status progress-line" });
  const tagPicker = select([], undefined, { "aria-label": "Tag" });
  const rescrape = h("button", { type: "button", "data-needs": "knowledge" }, "Re-scrape selected");
  const remove = h("button", { type: "button", class: "danger", "data-needs": "knowledge" }, "Delete selected");
  const addTag = h("button", { type: "button", "data-needs": "knowledge" }, "Add tag");
  const dropTag = h("button", { type: "button", "data-needs": "knowledge" }, "Remove tag");
  const count = h("span", { class: "selection-count" });
  const tagTools = h("span", { class: "tag-tools" }, tagPicker, addTag, dropTag);
  const toolbar = h(
    "div",
    { class: "toolbar", role: "group", "aria-label": "Selected sources" },
    count,
    rescrape,
    remove,
    tagTools,
  );

  all.addEventListener("change", () => {
    for (const source of sources) (all.checked ? selected.add(source.uuid) : selected.delete(source.uuid));
    for (const { parts } of rows.values()) parts.pick.checked = all.checked;
    syncSelection();
  });

  function syncSelection() {
    for (const uuid of [...selected]) if (!rows.has(uuid)) selected.delete(uuid);
    const n = selected.size;
    count.textContent = n ? `${n} selected` : "None selected";
    for (const button of [rescrape, remove, addTag, dropTag]) button.disabled = n === 0;
    addTag.disabled = dropTag.disabled = n === 0 || tags.length === 0;
    all.checked = n > 0 && n === sources.length;
    all.indeterminate = n > 0 && n < sources.length;
  }

  function statusCell(cell, status) {
    cell.dataset.status = status;
    if (status === SourceStatus.SUCCESS) return clear(cell, badge("success", "ok"));
    if (status.startsWith("error")) {
      const reason = status.replace(/^error:?\s*/, "") || "unknown";
      return clear(cell, badge("error", "bad"), h("span", { class: "reason" }, ` ${reason}`));
    }
    return clear(cell, badge(status, "busy"));
  }

  function tagChips(uuid) {
    return tags.filter((tag) => tag.data_source_uuids.includes(uuid)).map((tag) => chip(tag));
  }

  function makeRow(source) {
    const pick = h("input", { type: "checkbox" });
    pick.addEventListener("change", () => {
      (pick.checked ? selected.add(source.uuid) : selected.delete(source.uuid));
      syncSelection();
    });
    const parts = {
      pick,
      title: h("th", { scope: "row", class: "title" }),
      status: h("td", { class: "status-cell" }),
      tags: h("td", { class: "tags" }),
      tokens: h("td", { class: "num" }),
      rename: h("button", { type: "button", class: "small", "data-needs": "knowledge" }, "Rename"),
      view: h("button", { type: "button", class: "small" }, "View"),
      edit: h("button", { type: "button", class: "small", hidden: source.type !== SourceType.QA, "data-needs": "knowledge" }, "Edit"),
      remove: h("button", { type: "button", class: "small danger", "data-needs": "knowledge" }, "Delete"),
      editing: false,
    };
    const entry = { source, parts };
    parts.rename.addEventListener("click", () => startRename(entry));
    parts.view.addEventListener("click", () => openPanel(entry, false, parts.view));
    parts.edit.addEventListener("click", () => openPanel(entry, true, parts.edit));
    parts.remove.addEventListener("click", () => removeOne(entry));
    const tr = h(
      "tr",
      { "data-uuid": source.uuid },
      h("td", { class: "pick" }, pick),
      parts.title,
      h("td", {}, TYPES[source.type] ?? source.type),
      parts.status,
      parts.tags,
      parts.tokens,
      h("td", { class: "actions" }, parts.view, parts.edit, parts.rename, parts.remove),
    );
    entry.tr = tr;
    return entry;
  }

  function fill(entry, source) {
    entry.source = source;
    const { parts } = entry;
    const label = source.title || source.file_name || source.uuid;
    parts.pick.setAttribute("aria-label", `Select ${label}`);
    parts.pick.checked = selected.has(source.uuid);
    for (const [name, verb] of [["rename", "Rename"], ["view", "View"], ["edit", "Edit"], ["remove", "Delete"]]) {
      parts[name].setAttribute("aria-label", `${verb} ${label}`);
    }
    if (!parts.editing) {
      const sub = source.type !== SourceType.QA && source.file_name && source.file_name !== label ? source.file_name : "";
      clear(parts.title, label, sub ? h("span", { class: "sub" }, sub) : null);
    }
    if (parts.status.dataset.status !== source.status) statusCell(parts.status, source.status);
    clear(parts.tags, ...tagChips(source.uuid));
    parts.tokens.textContent = source.tokens ? String(source.tokens) : "";
  }

  function startRename(entry) {
    const { parts, source } = entry;
    parts.editing = true;
    const label = `New title for ${source.title}`;
    const input = h("input", { type: "text", value: source.title, maxlength: "500", "aria-label": label });
    const save = h("button", { type: "submit", class: "small primary" }, "Save title");
    const cancel = h("button", { type: "button", class: "small" }, "Cancel");
    const form = h("form", { class: "rename" }, input, save, cancel);
    const done = () => {
      parts.editing = false;
      fill(entry, entry.source);
      parts.rename.focus();
    };
    cancel.addEventListener("click", done);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      await busy(save, note, async () => {
        entry.source = await post(`/data-source/${source.uuid}/update`, { title: input.value.trim() });
        note.ok(`Renamed to “${entry.source.title}”.`);
        done();
      });
    });
    clear(parts.title, form);
    input.focus();
    input.select();
  }

  async function openPanel(entry, edit, opener) {
    const onSaved = (saved) => {
      entry.source = saved;
      note.ok(`Saved the Q&A pair “${saved.title}”.`);
    };
    await openSourcePanel(entry.source, { edit, onSaved });
    opener.focus();
    await refresh();
  }

  async function removeOne(entry) {
    const label = entry.source.title || entry.source.file_name || entry.source.uuid;
    if (!(await confirmDialog(`Delete “${label}” and its chunks?`))) return;
    await busy(entry.parts.remove, note, async () => {
      await post(`/data-source/${entry.source.uuid}/delete`);
      selected.delete(entry.source.uuid);
      note.ok(`Deleted “${label}”.`);
      await refresh();
    });
  }

  function chip(tag) {
    const dot = h("span", { class: "dot" });
    dot.style.backgroundColor = tag.color;
    return h("span", { class: "chip" }, dot, tag.name);
  }

  function draw() {
    const seen = new Set();
    let changedOrder = false;
    sources.forEach((source, index) => {
      seen.add(source.uuid);
      let entry = rows.get(source.uuid);
      if (!entry) {
        entry = makeRow(source);
        rows.set(source.uuid, entry);
        changedOrder = true;
      }
      fill(entry, source);
      if (body.children[index] !== entry.tr) changedOrder = true;
    });
    for (const [uuid, entry] of rows) {
      if (!seen.has(uuid)) {
        entry.tr.remove();
        rows.delete(uuid);
      }
    }
    if (changedOrder) body.append(...sources.map((source) => rows.get(source.uuid).tr));
    const keep = tagPicker.value;
    clear(tagPicker, ...tags.map((tag) => h("option", { value: tag.uuid }, tag.name)));
    if (tags.some((tag) => tag.uuid === keep)) tagPicker.value = keep;
    tagTools.hidden = tags.length === 0;
    empty.hidden = sources.length > 0;
    table.hidden = toolbar.hidden = sources.length === 0;
    const pending = sources.filter((source) => !isFinal(source.status)).length;
    const message = pending ? `${pending} source${pending > 1 ? "s" : ""} processing…` : "";
    if (progress.textContent !== message) progress.textContent = message;
    syncSelection();
    return pending;
  }

  async function refresh() {
    clearTimeout(timer);
    if (stopped) return;
    try {
      [sources, tags] = await Promise.all([
        get(`/chatbot/${bot}/data-sources`, { signal: ctx.signal }),
        get(`/chatbot/${bot}/source-tags`, { signal: ctx.signal }),
      ]);
    } catch (error) {
      if (error.name === "AbortError") return;
      note.error(error);
      timer = setTimeout(refresh, POLL_MS * 3);
      return;
    }
    if (stopped) return;
    const pending = draw();
    onChange(sources, tags);
    if (pending) timer = setTimeout(refresh, POLL_MS);
  }

  const plural = (n) => `${n} source${n === 1 ? "" : "s"}`;
  /** A bulk action on the selection: nothing when none is selected; the buttons follow the selection after. */
  const bulk = (button, action) =>
    button.addEventListener("click", async () => {
      if (!selected.size) return;
      await busy(button, note, action);
      syncSelection();
    });

  bulk(rescrape, async () => {
    const results = await post("/data-sources/url/re-scrape", { uuids: [...selected] });
    const refused = results.filter((item) => item.error);
    const because = refused.length ? `; ${refused.length} not re-scraped (${refused[0].error})` : "";
    note.ok(`Re-scraping ${plural(results.length - refused.length)}${because}.`);
    await refresh();
  });
  bulk(remove, async () => {
    const n = selected.size;
    if (!(await confirmDialog(`Delete ${plural(n)} and their chunks?`))) return;
    await post("/data-sources/delete", { uuids: [...selected] });
    selected.clear();
    note.ok(`Deleted ${plural(n)}.`);
    await refresh();
  });
  const retag = (adding) => async () => {
    const tag = tags.find((item) => item.uuid === tagPicker.value);
    if (!tag) return;
    const current = new Set(tag.data_source_uuids);
    for (const uuid of selected) (adding ? current.add(uuid) : current.delete(uuid));
    await post(`/source-tag/${tag.uuid}/update`, { data_source_uuids: [...current] });
    note.ok(`${adding ? "Tagged" : "Untagged"} ${plural(selected.size)} “${tag.name}”.`);
    await refresh();
  };
  bulk(addTag, retag(true));
  bulk(dropTag, retag(false));

  const wrap = tableWrap(table, "Sources");
  const element = h("div", { class: "sources-block" }, progress, toolbar, note.element, empty, wrap);
  return {
    element,
    refresh,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
