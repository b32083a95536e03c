// Knowledge of one chatbot: add Q&A pairs, web pages and files; whole websites (crawls, re-sync); source tags; the
// live sources table.
import { SourceStatus } from "/static/shared/names.js";
import { post, request } from "./api.js";
import { crawlsSection } from "./crawls.js";
import { isFinal, sourcesTable } from "./sources.js";
import { busy, clear, confirmDialog, field, h, heading, notice } from "./ui.js";
import { uploader } from "./uploads.js";

export function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const tagList = h("ul", { class: "tag-list", "aria-label": "Source tags" });
  // The tag list follows every read of the table: tagging sources there changes the counts here. So does the message
  // of a page just added: the table reads the sources every second while one is processing.
  const table = sourcesTable(ctx, (sources, tags) => {
    drawTags(tags);
    followAdded(sources);
  });
  const refresh = () => table.refresh();

  function drawTags(tags) {
    clear(tagList, ...tags.map(tagItem));
    if (!tags.length) tagList.append(h("li", { class: "empty" }, "No tags yet."));
  }

  function tagItem(tag) {
    const dot = h("span", { class: "dot" });
    dot.style.backgroundColor = tag.color;
    const remove = h(
      "button",
      { type: "button", class: "small quiet", "aria-label": `Delete tag ${tag.name}`, "data-needs": "knowledge" },
      "×",
    );
    remove.addEventListener("click", async () => {
      if (!(await confirmDialog(`Delete the tag “${tag.name}”? Its sources stay.`))) return;
      await busy(remove, tagNote, async () => {
        await request("DELETE", `/source-tag/${tag.uuid}/delete`);
        tagNote.ok(`Deleted the tag ${tag.name}.`);
        await refresh();
      });
    });
    const n = tag.data_source_uuids.length;
    const count = h("span", { class: "sub" }, ` ${n} source${n === 1 ? "" : "s"}`);
    return h("li", { class: "chip" }, dot, tag.name, count, remove);
  }

  // Q&A
  const qaNote = notice();
  const question = h("textarea", { rows: "2", required: true });
  const answer = h("textarea", { rows: "4", required: true });
  const qaLink = h("input", { type: "url", placeholder: "https://" });
  const addQa = h("button", { type: "submit", class: "primary" }, "Add Q&A");
  const qaForm = h(
    "form",
    { class: "card" },
    h("h3", {}, "Q&A pair"),
    field("Question", question),
    field("Answer", answer),
    field("Reference link (optional)", qaLink),
    addQa,
    qaNote.element,
  );
  qaForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(addQa, qaNote, async () => {
      const body = { question: question.value.trim(), answer: answer.value.trim() };
      if (qaLink.value.trim()) body.reference_source_link = qaLink.value.trim();
      await post(`/chatbot/${bot}/data-source/qa`, body);
      question.value = answer.value = qaLink.value = "";
      qaNote.ok("Q&A pair added.");
      await refresh();
    });
  });

  // URL
  const urlNote = notice();
  const url = h("input", { type: "url", required: true, placeholder: "https://example.com/faq" });
  const addUrl = h("button", { type: "submit", class: "primary" }, "Add URL");
  const urlForm = h(
    "form",
    { class: "card" },
    h("h3", {}, "Web page"),
    field("Page URL", url),
    addUrl,
    urlNote.element,
  );
  // The page just added, whose message says "being fetched" until its source is ready or failed.
  const added = { uuid: null, seen: false };
  function followAdded(sources) {
    if (!added.uuid) return;
    const source = sources.find((item) => item.uuid === added.uuid);
    if (!source) {
      if (added.seen) {
        added.uuid = null; // deleted meanwhile: nothing left to report
        urlNote.clear();
      }
      return;
    }
    added.seen = true;
    if (!isFinal(source.status)) return;
    added.uuid = null;
    if (source.status === SourceStatus.SUCCESS) {
      urlNote.ok(`Page ready: “${source.title}” is in the knowledge.`);
    } else {
      const reason = source.status.replace(/^error:?\s*/, "") || "unknown reason";
      urlNote.error(`The page could not be read: ${reason}. It stays in the sources below; re-scrape it there.`);
    }
  }
  urlForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    added.uuid = null; // a new message replaces the last page's
    await busy(addUrl, urlNote, async () => {
      try {
        const source = await post(`/chatbot/${bot}/data-source/url`, { url: url.value.trim() });
        Object.assign(added, { uuid: source.uuid, seen: false });
        urlNote.ok("Page added: it is being fetched.");
      } catch (error) {
        if (error.status !== 409) throw error;
        urlNote.ok("This page is already a source.");
      }
      url.value = "";
      await refresh();
    });
  });

  // Tags
  const tagNote = notice();
  const tagName = h("input", { type: "text", required: true, maxlength: "200" });
  const tagColor = h("input", { type: "color", value: "#2563eb" });
  const addTag = h("button", { type: "submit" }, "Create tag");
  const tagFields = [field("Tag name", tagName), field("Tag colour", tagColor)];
  const tagForm = h("form", { class: "inline-form" }, ...tagFields, addTag);
  tagForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(addTag, tagNote, async () => {
      const body = { name: tagName.value.trim(), color: tagColor.value };
      const tag = await post(`/chatbot/${bot}/source-tag/create`, body);
      tagName.value = "";
      tagNote.ok(`Created the tag ${tag.name}: select sources below and press “Add tag”.`);
      await refresh();
    });
  });

  const site = crawlsSection(ctx, refresh);
  ctx.main.append(
    heading(`Knowledge: ${ctx.chatbot.name}`),
    h(
      "section",
      { "aria-labelledby": "add-h", "data-needs": "knowledge" },
      h("h2", { id: "add-h" }, "Add knowledge"),
      h(
        "div",
        { class: "grid" },
        qaForm,
        urlForm,
        h("div", { class: "card" }, h("h3", {}, "Files"), uploader(ctx, refresh)),
      ),
    ),
    site.element,
    h(
      "section",
      { "aria-labelledby": "tags-h" },
      h("h2", { id: "tags-h" }, "Source tags"),
      h("div", { class: "card" }, h("div", { "data-needs": "knowledge" }, tagForm), tagNote.element, tagList),
    ),
    h("section", { "aria-labelledby": "sources-h" }, h("h2", { id: "sources-h" }, "Sources"), table.element),
  );
  refresh();
  return () => {
    table.stop();
    site.stop();
  };
}
