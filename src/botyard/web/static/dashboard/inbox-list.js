// The inbox's list pane: the tabs (Mine, Unassigned, Waiting, All) with their counts, the status and channel
// filters and the search box, then one row per conversation in the order the API gives (who waits longest first).
// A row names the person, never "Visitor of <date>": two visitors who wrote the same words must be told apart.
import { ConversationStatus } from "/static/shared/names.js";
import { channelLabel, typeLabel } from "./channel-names.js";
import { windowLine } from "./channel-window.js";
import { clear, h, select, uid } from "./ui.js";

export const VIEWS = [
  ["mine", "Mine"],
  ["unassigned", "Unassigned"],
  ["waiting", "Waiting"],
  ["all", "All"],
];
const STATUSES = [
  [ConversationStatus.OPEN, "Open"],
  [ConversationStatus.PENDING, "Pending"],
  [ConversationStatus.SNOOZED, "Snoozed"],
  [ConversationStatus.RESOLVED, "Resolved"],
  ["all", "Any status"],
];
export const STATUS_LABEL = Object.fromEntries(STATUSES);
const TITLES = {
  mine: "Assigned to you",
  unassigned: "Handed to people (asked for one, live, or given a status) and assigned to nobody",
  waiting: "Asked for a person, and nobody has it yet",
  all: "Every conversation of the chatbot, the bot's own too",
};
const SEARCH_MS = 300;

/** "42 s", "3 min", "2 h 5 min", "3 d": how long since an ISO time. */
export function waited(iso, now = Date.now()) {
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

const firstWords = (text, count = 6) => {
  const words = (text ?? "").trim().split(/\s+/).filter(Boolean);
  return words.length > count ? `${words.slice(0, count).join(" ")}…` : words.join(" ");
};

/** The page a visitor was on, short: its path (or host) rather than the whole address. */
export function pageName(url) {
  if (!url) return "";
  try {
    const parsed = new URL(url);
    return parsed.pathname && parsed.pathname !== "/" ? `${parsed.host}${parsed.pathname}` : parsed.host;
  } catch {
    return url;
  }
}

/** Who a conversation is with: the contact's name, else their email or phone, else the channel's display name,
 * else a visitor told apart by a handle of their conversation's id (two visitors who ask the same thing on the same
 * page are still two) with the page they were on or their first words. */
export function personName(entry) {
  const contact = entry?.contact;
  const known = contact?.name || contact?.email || contact?.phone || entry?.channel?.user_name;
  if (known) return known;
  if (entry?.channel?.user_id) return entry.channel.user_id;
  const who = entry?.uuid ? `Visitor #${entry.uuid.slice(0, 4)}` : "Visitor";
  if (entry?.visitor_page) return `${who} on ${pageName(entry.visitor_page)}`;
  const words = firstWords(entry?.preview);
  return words ? `${who}: “${words}”` : who;
}

/** Where it is held: "Web" (the widget or the API), else the chatbot's channel by name and type ("Parcel bot
 * (Telegram)"), else the channel's type as people say it. */
export function channelName(entry, channels = new Map()) {
  const channel = entry?.channel?.uuid ? channels.get(entry.channel.uuid) : null;
  if (channel) return channelLabel(channel);
  if (entry?.channel_type) return typeLabel(entry.channel_type);
  return entry?.channel ? "a deleted channel" : "Web";
}

export class ListPane {
  /** `inbox`: the page (reads `filters`, calls `reload()` and `open(uuid)`). */
  constructor(inbox) {
    this.inbox = inbox;
    this.tabs = new Map();
    const tabList = h("div", { class: "inbox-tabs", role: "tablist", "aria-label": "Views" });
    for (const [view, label] of VIEWS) {
      const count = h("span", { class: "count" });
      const tab = h("button", { type: "button", role: "tab", "data-view": view, title: TITLES[view] }, label, " ", count);
      tab.addEventListener("click", () => this.choose({ view }));
      this.tabs.set(view, { tab, count, label });
      tabList.append(tab);
    }
    this.status = select(STATUSES, inbox.filters.status, { id: uid("status") });
    this.status.addEventListener("change", () => this.choose({ status: this.status.value }));
    this.channel = select([["", "All channels"]], "", { id: uid("channel") });
    this.channel.addEventListener("change", () => this.choose({ channel: this.channel.value }));
    this.search = h("input", { type: "search", id: uid("q"), placeholder: "Search messages" });
    let timer = null;
    this.search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.choose({ q: this.search.value.trim() }), SEARCH_MS);
    });
    const label = (control, text) => h("label", { for: control.id, class: "visually-hidden" }, text);
    const filters = h(
      "div",
      { class: "inbox-filters" },
      label(this.status, "Status"),
      this.status,
      label(this.channel, "Channel"),
      this.channel,
      label(this.search, "Search"),
      this.search,
    );
    this.list = h("ul", { class: "session-list inbox-list", id: uid("list"), "aria-label": "Conversations" });
    for (const { tab } of this.tabs.values()) tab.setAttribute("aria-controls", this.list.id);
    this.element = h(
      "section",
      { class: "card inbox-list-pane", "aria-labelledby": "list-h" },
      h("h2", { id: "list-h", class: "visually-hidden" }, "Conversations"),
      tabList,
      filters,
      this.list,
    );
  }

  /** The channel filter's options: the web (`widget`) and each type among the chatbot's channels. */
  setChannels(channels) {
    const types = [...new Set([...channels.values()].map((channel) => channel.type))];
    const options = [["", "All channels"], ["widget", "Web (widget)"], ...types.map((type) => [type, typeLabel(type)])];
    clear(this.channel, ...options.map(([value, text]) => h("option", { value }, text)));
    this.channel.value = this.inbox.filters.channel;
  }

  choose(change) {
    Object.assign(this.inbox.filters, change);
    this.inbox.saveFilters();
    this.drawTabs(this.inbox.counts);
    this.inbox.reload().catch((error) => error.name !== "AbortError" && this.inbox.note.error(error));
  }

  drawTabs(counts = {}) {
    for (const [view, { tab, count, label }] of this.tabs) {
      const selected = this.inbox.filters.view === view;
      tab.setAttribute("aria-selected", String(selected));
      const n = counts?.[view];
      count.textContent = n === undefined ? "" : String(n);
      tab.setAttribute("aria-label", n === undefined ? label : `${label}, ${n}`);
    }
  }

  draw(entries, counts, openUuid) {
    this.drawTabs(counts);
    clear(this.list, ...entries.map((entry) => this.row(entry, openUuid)));
    if (!entries.length) {
      const waiting = counts?.waiting ?? 0;
      const text = waiting
        ? `No conversations in this view; ${waiting} waiting for a person (the Waiting tab).`
        : "No conversations in this view. Nobody is waiting for a person.";
      this.list.append(h("li", { class: "empty" }, text));
    }
  }

  row(entry, openUuid) {
    const name = personName(entry);
    const since = entry.waiting_since ?? entry.last_message_at ?? entry.modified_at;
    const state = entry.live_chat
      ? "live chat"
      : entry.waiting_since
        ? `waiting ${waited(entry.waiting_since)}`
        : since
          ? `${waited(since)} ago`
          : "";
    const status = entry.status && entry.status !== ConversationStatus.OPEN ? STATUS_LABEL[entry.status] : "";
    const unread = entry.unread
      ? h("span", { class: "unread", "aria-label": `${entry.unread} unread` }, String(entry.unread))
      : null;
    const assignee = entry.assignee?.name || (entry.assignee ? "Someone" : "Unassigned");
    const open = h(
      "button",
      {
        type: "button",
        class: `open${entry.unread ? " has-unread" : ""}`,
        "data-session": entry.uuid,
        "aria-current": entry.uuid === openUuid ? "true" : undefined,
      },
      h(
        "span",
        { class: "row-main" },
        h("span", { class: "row-head" }, h("span", { class: "person", dir: "auto" }, name), unread),
        h("span", { class: "preview", dir: "auto" }, entry.preview || "No question yet"),
        h(
          "span",
          { class: "sub" },
          [channelName(entry, this.inbox.channels), state, status, `${assignee}${windowLine(entry)}`].filter(Boolean).join(" · "),
        ),
      ),
    );
    open.addEventListener("click", () => this.inbox.open(entry.uuid));
    return h("li", { "data-uuid": entry.uuid, "data-status": entry.status ?? "" }, open);
  }
}
