// Conversations: a chatbot's sessions, latest activity first, with the first question and where each is held (the
// web or a channel, with the channel's user), filters (dates, tags, hand-off, refused answers, feedback, channel),
// exports (CSV, JSON), deletes, the retention period, and a transcript of each.
import { download, get, post } from "./api.js";
import { WEB_LABEL, channelOptions, channelsOf, typeLabel } from "./channel-names.js";
import { retentionForm } from "./retention.js";
import { transcript } from "./transcript.js";
import {
  badge,
  busy,
  clear,
  confirmDialog,
  field,
  formatDate,
  h,
  headRow,
  heading,
  notice,
  select,
  tableWrap,
} from "./ui.js";

const PAGE = 20;
const ANY_YES_NO = [["", "Any"], ["1", "Yes"], ["0", "No"]];

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

/** The badges of an overview row: its flags, its figures, its tags. */
function rowBadges(item) {
  const out = sessionBadges(item);
  if (!item.live_chat && !item.human_requested && item.handed_off) out.push(badge("Handed off"));
  if (item.refused_count) out.push(badge(`Refused ${item.refused_count}`, "bad"));
  if (item.rated_up) out.push(badge(`Rated up ${item.rated_up}`, "ok"));
  if (item.rated_down) out.push(badge(`Rated down ${item.rated_down}`, "bad"));
  return out;
}

/** Where a conversation is held: the web, or the channel by name and type with its user's display name. */
function place(item, channels) {
  if (!item.channel) return h("td", { class: "channel" }, WEB_LABEL);
  const channel = channels.get(item.channel.uuid) ?? { type: "channel", name: "" };
  const user = item.channel.user_name || item.channel.user_id;
  return h(
    "td",
    { class: "channel" },
    h("span", { class: "channel-name", dir: "auto" }, channel.name || typeLabel(channel.type)),
    " ",
    badge(typeLabel(channel.type)),
    user ? h("span", { class: "hint channel-user", dir: "auto" }, user) : null,
  );
}

export async function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const channels = await channelsOf(bot, ctx.signal);
  const channel = select(channelOptions(channels, "web"), "");
  const from = h("input", { type: "date" });
  const to = h("input", { type: "date" });
  const tags = h("input", { type: "text", placeholder: "billing, urgent" });
  const human = select(ANY_YES_NO, "");
  const handedOff = select(ANY_YES_NO, "");
  const refused = select(ANY_YES_NO, "");
  const feedback = select([["", "Any"], ["any", "Rated"], ["up", "Rated up"], ["down", "Rated down"], ["none", "Not rated"]], "");
  const apply = h("button", { type: "submit", class: "primary" }, "Apply filters");
  const filters = h(
    "form",
    { class: "card inline-form", "aria-label": "Filters" },
    field("From", from),
    field("To", to),
    field("Tags", tags, "Comma-separated; sessions with all of them."),
    field("Human requested", human),
    field("Handed off", handedOff),
    field("Refused answers", refused),
    field("Feedback", feedback),
    field("Channel", channel),
    apply,
  );
  const exportCsv = h("button", { type: "button" }, "Export CSV");
  const exportJson = h("button", { type: "button" }, "Export JSON");
  const exports = h("div", { class: "actions", "aria-label": "Export" }, exportCsv, exportJson,
    h("p", { class: "hint" }, "Exports every conversation the filters pick, one row per message."));
  const body = h("tbody");
  const table = h(
    "table",
    {},
    h("caption", {}, "Sessions, latest activity first"),
    headRow(["Started", "Last activity", "First question", "Channel", "Status and tags", "Actions"]),
    body,
  );
  const more = h("button", { type: "button" }, "Show more");
  const count = h("p", { class: "hint" });
  const detail = h("section", { "aria-labelledby": "transcript-h", class: "transcript-section" });
  let shown = 0;

  const query = () => ({
    start_timestamp: dayStart(from.value),
    end_timestamp: dayEnd(to.value),
    human_requested: human.value,
    handed_off: handedOff.value,
    refused: refused.value,
    feedback: feedback.value,
    channel: channel.value,
    tag: tags.value.split(",").map((tag) => tag.trim()).filter(Boolean),
  });

  async function load() {
    note.ok("Loading sessions…");
    shown = 0;
    clear(body);
    await showMore();
    note.ok(`${shown}${more.hidden ? "" : "+"} session${shown === 1 ? "" : "s"}.`);
  }

  async function showMore() {
    const page = await get(`/chatbot/${bot}/conversations`, {
      query: { ...query(), limit: PAGE, offset: shown },
      signal: ctx.signal,
    });
    shown += page.length;
    body.append(...page.map(row));
    more.hidden = page.length < PAGE;
    count.textContent = shown ? `Showing ${shown}.` : "No sessions match.";
  }

  function row(item) {
    const when = formatDate(item.created_at);
    const open = h("button", { type: "button", class: "small", "aria-label": `Open conversation of ${when}` }, "Open");
    open.addEventListener("click", () => {
      history.replaceState(null, "", `#/bot/${bot}/conversations/${item.uuid}`);
      for (const tr of body.children) tr.classList.toggle("selected-row", tr.dataset.uuid === item.uuid);
      openSession(item.uuid);
    });
    const remove = h("button", { type: "button", class: "small danger", "aria-label": `Delete conversation of ${when}` }, "Delete");
    remove.addEventListener("click", () => busy(remove, note, () => deleteSession(item.uuid, when)));
    return h(
      "tr",
      { "data-uuid": item.uuid },
      h("td", {}, when),
      h("td", {}, formatDate(item.modified_at)),
      h("td", { class: "preview" }, item.preview || h("span", { class: "hint" }, "No question yet")),
      place(item, channels),
      h("td", {}, ...rowBadges(item)),
      h("td", { class: "actions" }, open, remove),
    );
  }

  async function deleteSession(uuid, when) {
    if (!(await confirmDialog(`Delete the conversation of ${when} with all its messages? This cannot be undone.`))) return;
    await post(`/session/${uuid}/delete`);
    body.querySelector(`tr[data-uuid="${uuid}"]`)?.remove();
    shown -= 1;
    if (location.hash.endsWith(`/${uuid}`)) {
      history.replaceState(null, "", `#/bot/${bot}/conversations`);
      clear(detail);
    }
    note.ok("Conversation deleted.");
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
      const exportOne = h("button", { type: "button", class: "small" }, "Export this conversation (CSV)");
      exportOne.addEventListener("click", () =>
        busy(exportOne, note, () => download(`/session/${uuid}/export`, `conversation-${uuid}.csv`)),
      );
      clear(
        detail,
        title,
        h(
          "div",
          { class: "actions" },
          ...sessionBadges(session.meta),
          h("a", { class: "button small", href: `#/bot/${bot}/inbox/${uuid}` }, "Open in inbox"),
          exportOne,
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

  const exportAs = (format) => () =>
    download(`/chatbot/${bot}/sessions/export`, `conversations.${format}`, { query: { ...query(), format } });
  exportCsv.addEventListener("click", () => busy(exportCsv, note, exportAs("csv")));
  exportJson.addEventListener("click", () => busy(exportJson, note, exportAs("json")));
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(apply, note, load);
  });
  more.addEventListener("click", () => busy(more, note, showMore));

  ctx.main.append(
    heading(`Conversations: ${ctx.chatbot.name}`),
    filters,
    exports,
    note.element,
    tableWrap(table, "Sessions"),
    count,
    more,
    detail,
    retentionForm(bot, ctx.signal),
  );
  busy(apply, note, load);
  if (ctx.params[1]) openSession(ctx.params[1]);
}
