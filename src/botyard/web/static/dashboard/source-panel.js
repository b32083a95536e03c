// One source in a modal panel: what it holds (its chunks, as search finds and cites them, 50 at a time) and, for a
// Q&A pair, the form that edits its question and answer. The extracted text of pages and files is not kept.
import { SourceType } from "/static/shared/names.js";
import { get, post } from "./api.js";
import { busy, clear, field, h, notice, uid } from "./ui.js";

const PAGE = 50;

/** Opens the panel; `onSaved(source)` after an edit. Resolves when the panel closes. */
export function openSourcePanel(source, { edit = false, onSaved = () => {} } = {}) {
  const label = source.title || source.file_name || source.uuid;
  const titleId = uid("src");
  const note = notice();
  const list = h("ol", { class: "chunk-list", "aria-label": `Chunks of ${label}` });
  const summary = h("p", { class: "sub", role: "status" }, "Loading chunks…");
  const more = h("button", { type: "button", hidden: true }, "Show more chunks");
  const close = h("button", { type: "button" }, "Close");
  const dialog = h(
    "dialog",
    { class: "panel", "aria-labelledby": titleId },
    h("div", { class: "panel-head" }, h("h2", { id: titleId }, label), close),
  );
  let shown = 0;

  async function reload() {
    shown = 0;
    clear(list);
    await load();
  }

  async function load() {
    const page = await get(`/data-source/${source.uuid}/chunks`, { query: { offset: shown, limit: PAGE } });
    list.append(...page.chunks.map(chunkItem));
    shown += page.chunks.length;
    const kind =
      source.type === SourceType.QA ? "A Q&A pair is one chunk." : "The extracted text is not kept: these are its chunks.";
    summary.textContent = page.total
      ? `${page.total} chunk${page.total === 1 ? "" : "s"}, showing ${shown}. ${kind}`
      : "No chunks yet: the source has not been processed (or had no text).";
    more.hidden = shown >= page.total;
  }

  more.addEventListener("click", () => busy(more, note, load));
  close.addEventListener("click", () => dialog.close());
  const saved = (changed) => {
    source = changed;
    onSaved(changed);
    return reload();
  };
  if (source.type === SourceType.QA) dialog.append(qaForm(source, note, saved));
  dialog.append(
    h("section", { class: "chunks", "aria-label": "Chunks" }, h("h3", {}, "Chunks"), summary, list, more),
    note.element,
  );
  document.body.append(dialog);
  dialog.showModal();
  const first = edit ? dialog.querySelector("textarea") : close;
  first?.focus();
  load().catch((error) => {
    summary.textContent = "";
    note.error(error);
  });
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve();
    });
  });
}

function chunkItem(chunk) {
  const facts = [`${chunk.tokens} tokens`, chunk.embedded ? "embedded" : "not embedded"].join(" · ");
  return h(
    "li",
    { class: "chunk" },
    h(
      "p",
      { class: "chunk-head" },
      chunk.heading ? h("strong", {}, chunk.heading) : null,
      h("span", { class: "sub" }, ` ${facts}`),
    ),
    h("p", { class: "plain" }, chunk.text),
  );
}

function qaForm(source, note, onSaved) {
  const meta = JSON.parse(source.meta_json || "{}");
  const question = h("textarea", { rows: "2", required: true });
  const answer = h("textarea", { rows: "5", required: true });
  question.value = meta.question ?? "";
  answer.value = meta.answer ?? "";
  const save = h("button", { type: "submit", class: "primary" }, "Save Q&A");
  const form = h(
    "form",
    { class: "qa-edit" },
    h("h3", {}, "Q&A pair"),
    field("Question", question),
    field("Answer", answer, "Saving replaces the pair's chunk: the old text is no longer found."),
    save,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(save, note, async () => {
      const body = { question: question.value.trim(), answer: answer.value.trim() };
      const saved = await post(`/data-source/${source.uuid}/qa/update`, body);
      await onSaved(saved);
      note.ok("Saved: the pair's chunk is replaced.");
    });
  });
  return form;
}
