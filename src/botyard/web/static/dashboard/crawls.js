// "Whole website" on the Knowledge page: start a crawl (sitemap or links, within a scope), follow the chatbot's crawls
// live (polled every second while any is queued or running), cancel one, read why pages were not added; and the
// re-sync schedule (resync.js). onChange() is called as crawls add pages, so the sources table shows them.
import { CrawlMode, CrawlState } from "/static/shared/names.js";
import { get, post } from "./api.js";
import { keepFresh } from "./resync.js";
import { badge, busy, checkbox, clear, field, h, notice, select, uid } from "./ui.js";

const POLL_MS = 1000;
const FINAL = new Set([CrawlState.DONE, CrawlState.CANCELLED, CrawlState.FAILED]);
const MODES = [
  [CrawlMode.LINKS, "Follow links"],
  [CrawlMode.SITEMAP, "Sitemap"],
];
const STATE_KIND = {
  [CrawlState.DONE]: "ok",
  [CrawlState.FAILED]: "bad",
  [CrawlState.CANCELLED]: "",
  [CrawlState.QUEUED]: "busy",
  [CrawlState.RUNNING]: "busy",
};

/** Patterns typed one a line or separated by commas. */
const patterns = (text) =>
  text
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean);
/** "docs/" means "/docs/": the server takes only paths. */
const pathPrefix = (text) => (text.trim() ? text.trim().replace(/^\/?/, "/") : null);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const progressOf = (crawl) =>
  [crawl.state, crawl.pages_found, crawl.pages_done, crawl.pages_failed, crawl.pages_skipped].join(" ");

export function crawlsSection(ctx, onChange) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const crawls = new Map(); // uuid -> {crawl, parts}
  let timer = 0;
  let polling = false;
  let stopped = false;

  // The form.
  const url = h("input", { type: "url", required: true, placeholder: "https://example.com/docs/" });
  const mode = select(MODES, CrawlMode.LINKS);
  const prefix = h("input", { type: "text", placeholder: "/docs/", maxlength: "500" });
  const include = h("textarea", { rows: "2", class: "code", spellcheck: "false" });
  const exclude = h("textarea", { rows: "2", class: "code", spellcheck: "false" });
  const maxPages = h("input", { type: "number", min: "1", max: "10000", step: "1", value: "500", required: true });
  const maxDepth = h("input", { type: "number", min: "0", max: "50", step: "1", value: "5", required: true });
  const sameHost = checkbox("Same host only", true);
  const start = h("button", { type: "submit", class: "primary" }, "Start crawl");
  const patternHint = "Glob patterns on the path, one a line or separated by commas, e.g. /docs/*";
  const form = h(
    "form",
    { class: "card" },
    h("h3", {}, "Crawl a website"),
    field("Start URL", url, "A page to follow links from, or the site (or its sitemap.xml) for the sitemap mode."),
    field("Mode", mode),
    field("Path prefix (optional)", prefix, "Only pages whose path starts with this, e.g. /docs/"),
    field("Include patterns (optional)", include, `${patternHint}; empty: every page.`),
    field("Exclude patterns (optional)", exclude, patternHint),
    h("div", { class: "row" }, field("Max pages", maxPages), field("Max depth", maxDepth, "Link hops (links mode).")),
    sameHost.element,
    start,
    note.element,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(start, note, async () => {
      const body = {
        url: url.value.trim(),
        mode: mode.value,
        scope: {
          same_host: sameHost.input.checked,
          path_prefix: pathPrefix(prefix.value),
          include: patterns(include.value),
          exclude: patterns(exclude.value),
        },
        max_pages: Number(maxPages.value),
        max_depth: Number(maxDepth.value),
      };
      const crawl = await post(`/chatbot/${bot}/data-source/crawl`, body);
      url.value = "";
      note.ok(`Crawl of ${crawl.url} started: its pages are added to the sources as they are fetched.`);
      update(crawl);
      wake();
    });
  });

  // The list of crawls, newest first.
  const list = h("ul", { class: "crawl-list", "aria-label": "Crawls" });
  const empty = h("p", { class: "empty" }, "No crawls yet.");
  const listNote = notice();

  function makeItem(crawl) {
    const parts = {
      state: h("span", { class: "crawl-state" }),
      counts: h("p", { class: "crawl-counts" }),
      reason: h("p", { class: "crawl-reason" }),
      failures: h("ul", { class: "crawl-failures" }),
      failuresTitle: h("summary"),
      cancel: h("button", { type: "button", class: "small danger" }, "Cancel crawl"),
      shownFailures: -1,
    };
    parts.details = h("details", { class: "crawl-details" }, parts.failuresTitle, parts.failures);
    parts.cancel.addEventListener("click", () => cancel(crawl.uuid, parts.cancel));
    const title = h("span", { class: "crawl-url", id: uid("crawl") }, crawl.url);
    parts.cancel.setAttribute("aria-describedby", title.id);
    const mode = MODES.find(([value]) => value === crawl.mode)?.[1] ?? crawl.mode;
    const started = h("span", { class: "sub" }, `${mode} · started ${new Date(crawl.created_at).toLocaleString()}`);
    const li = h(
      "li",
      { class: "crawl", "data-uuid": crawl.uuid },
      h("div", { class: "crawl-head" }, title, parts.state),
      started,
      parts.counts,
      parts.reason,
      parts.details,
      h("div", { class: "actions" }, parts.cancel),
    );
    return { li, parts };
  }

  function fill(entry, crawl) {
    entry.crawl = crawl;
    const { parts, li } = entry;
    li.dataset.state = crawl.state;
    clear(parts.state, badge(crawl.state, STATE_KIND[crawl.state] ?? ""));
    parts.counts.textContent =
      `Found ${crawl.pages_found} · Added ${crawl.pages_done} · ` +
      `Failed ${crawl.pages_failed} · Skipped ${crawl.pages_skipped}`;
    parts.reason.textContent = crawl.reason && crawl.reason !== crawl.state ? `Reason: ${crawl.reason}` : "";
    parts.reason.hidden = !parts.reason.textContent;
    parts.cancel.hidden = FINAL.has(crawl.state);
    const failures = crawl.failures ?? [];
    const total = Math.max(crawl.pages_failed + crawl.pages_skipped, failures.length);
    parts.details.hidden = failures.length === 0;
    const first = total > failures.length ? ` (the first ${failures.length} listed)` : "";
    parts.failuresTitle.textContent = `${plural(total, "page")} not added${first}`;
    if (parts.shownFailures !== failures.length) {
      parts.shownFailures = failures.length;
      clear(
        parts.failures,
        ...failures.map((item) =>
          h("li", {}, h("span", { class: "crawl-url" }, item.url), h("span", { class: "reason" }, ` ${item.reason}`)),
        ),
      );
    }
  }

  /** Shows a crawl's latest state; true when its progress moved. */
  function update(crawl) {
    let entry = crawls.get(crawl.uuid);
    if (!entry) {
      entry = makeItem(crawl);
      crawls.set(crawl.uuid, entry);
      list.prepend(entry.li);
    }
    const previous = entry.crawl;
    fill(entry, crawl);
    empty.hidden = crawls.size > 0;
    if (previous && !FINAL.has(previous.state) && FINAL.has(crawl.state)) announce(crawl);
    return !previous || progressOf(previous) !== progressOf(crawl);
  }

  function announce(crawl) {
    if (crawl.state === CrawlState.DONE) {
      // pages_done counts new sources only: a page the chatbot already held is among the skipped, with its reason.
      const skipped = crawl.pages_skipped ? `, ${crawl.pages_skipped} skipped` : "";
      const failed = crawl.pages_failed ? `, ${crawl.pages_failed} failed` : "";
      listNote.ok(`Crawl of ${crawl.url} done: ${plural(crawl.pages_done, "new page")} added${skipped}${failed}.`);
    } else if (crawl.state === CrawlState.CANCELLED) {
      listNote.ok(`Crawl of ${crawl.url} cancelled: the pages already added stay.`);
    } else listNote.error(`Crawl of ${crawl.url} failed: ${crawl.reason || "unknown reason"}`);
  }

  async function cancel(uuid, button) {
    await busy(button, listNote, async () => {
      update(await post(`/crawl/${uuid}/cancel`, {}));
      onChange();
    });
  }

  const active = () => [...crawls.values()].map((entry) => entry.crawl).filter((crawl) => !FINAL.has(crawl.state));

  /** Polls the unfinished crawls every second until none is left (one loop at a time). */
  function wake(delay = POLL_MS) {
    if (!stopped && !polling && !timer && active().length) timer = setTimeout(poll, delay);
  }

  async function poll() {
    timer = 0;
    polling = true;
    let delay = POLL_MS;
    try {
      const latest = await Promise.all(active().map((crawl) => get(`/crawl/${crawl.uuid}`, { signal: ctx.signal })));
      if (stopped) return;
      const moved = latest.map(update).some(Boolean);
      if (moved) onChange();
    } catch (error) {
      if (error.name === "AbortError") return;
      listNote.error(error);
      delay = POLL_MS * 3;
    } finally {
      polling = false;
    }
    wake(delay);
  }

  async function load() {
    try {
      const all = await get(`/chatbot/${bot}/crawls`, { signal: ctx.signal });
      if (stopped) return;
      for (const crawl of all) update(crawl); // oldest first: each goes on top
      wake();
    } catch (error) {
      if (error.name !== "AbortError") listNote.error(error);
    }
  }

  const fresh = keepFresh(ctx, onChange);
  const crawlCard = h("section", { class: "card", "aria-labelledby": "crawls-h" }, h("h3", { id: "crawls-h" }, "Crawls"));
  crawlCard.append(listNote.element, empty, list);
  const element = h(
    "section",
    { "aria-labelledby": "site-h" },
    h("h2", { id: "site-h" }, "Whole website"),
    h("div", { class: "grid", "data-needs": "knowledge" }, form, fresh.element),
    crawlCard,
  );
  load();
  return {
    element,
    stop() {
      stopped = true;
      clearTimeout(timer);
      fresh.stop();
    },
  };
}
