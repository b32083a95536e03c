// Conversations: a chatbot's sessions with filters (dates, tags, human requested) and a transcript of each.
import { get } from "./api.js";
import { transcript } from "./transcript.js";
import { badge, busy, clear, field, formatDate, h, headRow, heading, notice, select, tableWrap } from "./ui.js";

const PAGE = 20;

/** Local calendar day bounds as ISO instants ("" when no date). */
const dayStart = (value) => (value ? new Date(`${value}T00:00:00`).toISOString() : "");
const dayEnd = (value) => (value ? new Date(`${value}T23:59:59`).toISOString() : "");

export function sessionBadges(meta = {}) {
  const out = [];
  if (meta.live_chat) out.push(badge("Live chat", "live"));
  else if (meta.human_requested) out.push(badge("Human requested", "bad"));
  for (const tag of meta.tags ?? []) out.push(badge(tag));
  return out;
}

export function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const from = h("input", { type: "date" });
  const to = h("input", { type: "date" });
  const tags = h("input", { type: "text", placeholder: "billing, urgent" });
  const human = select([["", "Any"], ["1", "Yes"], ["0", "No"]], "");
  const apply = h("button", { type: "submit", class: "primary" }, "Apply filters");
  const filters = h(
    "form",
    { class: "card inline-form", "aria-label": "Filters" },
    field("From", from),
    field("To", to),
    field("Tags", tags, "Comma-separated; sessions with all of them."),
    field("Human requested", human),
    apply,
  );
  const body = h("tbody");
  const table = h(
    "table",
    {},
    h("caption", {}, "Sessions, newest first"),
    headRow(["Started", "Last activity", "Status and tags", "Actions"]),
    body,
  );
  const more = h("button", { type: "button" }, "Show more");
  const count = h("p", { class: "hint" });
  const detail = h("section", { "aria-labelledby": "transcript-h", class: "transcript-section" });
  let sessions = [];
  let shown = 0;

  async function load() {
    note.ok("Loading sessions…");
    const query = {
      start_timestamp: dayStart(from.value),
      end_timestamp: dayEnd(to.value),
      human_requested: human.value,
      tag: tags.value.split(",").map((tag) => tag.trim()).filter(Boolean),
    };
    sessions = (await get(`/chatbot/${bot}/sessions`, { query, signal: ctx.signal })).reverse();
    shown = 0;
    clear(body);
    await showMore();
    note.ok(`${sessions.length} session${sessions.length === 1 ? "" : "s"}.`);
  }

  async function showMore() {
    const batch = sessions.slice(shown, shown + PAGE);
    shown += batch.length;
    const details = await Promise.all(batch.map((item) => get(`/session/${item.uuid}`, { signal: ctx.signal })));
    body.append(...details.map(row));
    more.hidden = shown >= sessions.length;
    count.textContent = sessions.length ? `Showing ${shown} of ${sessions.length}.` : "No sessions match.";
  }

  function row(session) {
    const label = `Open conversation of ${formatDate(session.created_at)}`;
    const open = h("button", { type: "button", class: "small", "aria-label": label }, "Open");
    open.addEventListener("click", () => {
      history.replaceState(null, "", `#/bot/${bot}/conversations/${session.uuid}`);
      for (const tr of body.children) tr.classList.toggle("selected-row", tr.dataset.uuid === session.uuid);
      openSession(session.uuid);
    });
    return h(
      "tr",
      { "data-uuid": session.uuid },
      h("td", {}, formatDate(session.created_at)),
      h("td", {}, formatDate(session.modified_at)),
      h("td", {}, ...sessionBadges(session.meta)),
      h("td", { class: "actions" }, open),
    );
  }

  async function openSession(uuid) {
    const title = h("h2", { id: "transcript-h", tabindex: "-1" }, "Conversation");
    clear(detail, title, h("p", { class: "loading" }, "Loading the transcript…"));
    try {
      const [session, messages] = await Promise.all([
        get(`/session/${uuid}`, { signal: ctx.signal }),
        get(`/session/${uuid}/messages`, { signal: ctx.signal }),
      ]);
      title.textContent = `Conversation of ${formatDate(session.created_at)}`;
      const variables = Object.entries(session.meta.variables ?? {});
      clear(
        detail,
        title,
        h(
          "div",
          { class: "actions" },
          ...sessionBadges(session.meta),
          h("a", { class: "button small", href: `#/bot/${bot}/inbox/${uuid}` }, "Open in inbox"),
        ),
        variables.length
          ? h("p", { class: "hint" }, `Variables: ${variables.map(([k, v]) => `${k} = ${v}`).join(", ")}`)
          : null,
        messages.length
          ? h("div", { class: "transcript card", role: "log", "aria-label": "Transcript" }, ...transcript(messages))
          : h("p", { class: "empty" }, "No messages in this conversation."),
      );
      title.focus();
    } catch (error) {
      if (error.name !== "AbortError") clear(detail, title, h("p", { role: "alert", class: "alert" }, error.message));
    }
  }

  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(apply, note, load);
  });
  more.addEventListener("click", () => busy(more, note, showMore));

  ctx.main.append(
    heading(`Conversations: ${ctx.chatbot.name}`),
    filters,
    note.element,
    tableWrap(table, "Sessions"),
    count,
    more,
    detail,
  );
  busy(apply, note, load);
  if (ctx.params[1]) openSession(ctx.params[1]);
}
