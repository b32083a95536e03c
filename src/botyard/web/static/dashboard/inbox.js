// The inbox a team works in: the list of conversations handed to people (tabs Mine / Unassigned / Waiting / All,
// status and channel filters, search; who waits longest first), the open conversation (transcript and private notes,
// reply box with canned replies, assignment, status, take over, hand back) and its context (contact, channel,
// earlier conversations, the bot's sources). Everything is read from the API again at each event of the chatbot's
// event stream (fetch + SSE, resumed with Last-Event-ID), so another operator's assignment, status or note shows
// without a reload; unread counts are the signed-in person's own. At 360 px one pane at a time.
import { ChatbotEventKind } from "/static/shared/names.js";
import { readEvents } from "/static/shared/sse.js";
import { get, openStream, post } from "./api.js";
import { CannedManager, CannedStore } from "./canned.js";
import { channelsOf } from "./channel-names.js";
import { ContextPane } from "./inbox-context.js";
import { InboxKeys } from "./inbox-keys.js";
import { ListPane, VIEWS } from "./inbox-list.js";
import { SessionPane } from "./inbox-pane.js";
import { h, heading, notice } from "./ui.js";

export { waited } from "./inbox-list.js";

const RETRY_MS = [1000, 2000, 5000, 10000];
const TICK_MS = 30_000; // how often the waiting times move on
const FILTERS = "botyard.inbox.filters";
const DESCRIBE = {
  [ChatbotEventKind.HUMAN_REQUESTED]: () => "A visitor asked for a person.",
  [ChatbotEventKind.USER_MESSAGE]: (data) => `Visitor: ${data.query ?? ""}`,
  [ChatbotEventKind.LIVE_CHAT_STARTED]: () => "An operator took a conversation over.",
  [ChatbotEventKind.OPERATOR_MESSAGE]: () => "An operator replied.",
  [ChatbotEventKind.LIVE_CHAT_ENDED]: () => "A live chat ended.",
  [ChatbotEventKind.HUMAN_REQUEST_DISMISSED]: () => "An operator dismissed a request for a person.",
  [ChatbotEventKind.CONVERSATION_SEEN]: () => "",
  [ChatbotEventKind.CONTACT_FORM_OFFERED]: () => "A visitor asked for a person after hours: the form was offered.",
  [ChatbotEventKind.CONTACT_FORM_SENT]: (data) => `A visitor left a message after hours (${data.email ?? ""}).`,
  [ChatbotEventKind.CONVERSATION_ASSIGNED]: (data) =>
    data.assignee?.name || data.assignee_name ? `Assigned to ${data.assignee?.name ?? data.assignee_name}.` : "Unassigned.",
  [ChatbotEventKind.CONVERSATION_STATUS]: (data) => `A conversation is now ${data.status ?? "changed"}.`,
  [ChatbotEventKind.NOTE_ADDED]: (data) => `${data.author_name || "Someone"} added a private note.`,
};
const VISITOR_EVENTS = [
  ChatbotEventKind.USER_MESSAGE,
  ChatbotEventKind.HUMAN_REQUESTED,
  ChatbotEventKind.CONTACT_FORM_SENT,
];
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Tells the shell the chatbot's unread total (the badge on the Inbox link). */
export function announceUnread(chatbot, unread) {
  window.dispatchEvent(new CustomEvent("botyard:inbox-unread", { detail: { chatbot, unread } }));
}

function savedFilters() {
  // Unassigned: where new work arrives (a person's own is under Mine; All holds the bot's conversations too).
  const fallback = { view: "unassigned", status: "open", channel: "", q: "" };
  try {
    const saved = JSON.parse(sessionStorage.getItem(FILTERS) ?? "{}");
    const view = VIEWS.some(([name]) => name === saved.view) ? saved.view : fallback.view;
    return { ...fallback, status: saved.status || fallback.status, channel: saved.channel ?? "", view };
  } catch {
    return fallback;
  }
}

export async function render(ctx) {
  const inbox = new Inbox(ctx);
  await inbox.start();
  return () => inbox.stop();
}

class Inbox {
  constructor(ctx) {
    this.ctx = ctx;
    this.bot = ctx.chatbot.uuid;
    this.me = ctx.me || null;
    this.filters = savedFilters();
    this.entries = [];
    this.known = new Map(); // what the lists and the events said of each conversation, for one no longer listed
    this.counts = {};
    this.people = [];
    this.context = null;
    this.channels = new Map();
    this.openUuid = ctx.params[1] ?? null;
    this.lastId = "";
    this.loading = null;
    this.again = false;
    this.note = notice();
    this.canned = new CannedStore(ctx.signal);
    this.banner = h("p", { class: "banner", role: "status", "aria-label": "Inbox summary" });
    this.connection = h("p", { class: "connection", role: "status", "data-state": "down" }, "Connecting…");
    this.activity = h("ul", { class: "activity", role: "log", "aria-label": "Activity" });
    this.listPane = new ListPane(this);
    this.pane = new SessionPane(this);
    this.contextPane = new ContextPane(this);
    this.manager = new CannedManager(this.canned);
    this.keys = new InboxKeys(this);
  }

  async start() {
    this.layout();
    this.keys.start();
    const quiet = (error) => error.name !== "AbortError" && this.note.error(error);
    [this.channels] = await Promise.all([
      channelsOf(this.bot, this.ctx.signal),
      this.canned.load().catch(quiet),
      this.readPeople(),
    ]);
    this.listPane.setChannels(this.channels);
    // Connect first: the stream starts from "now", so nothing that happens after the list is read is missed.
    let first = null;
    try {
      first = await this.connect();
    } catch (error) {
      if (error.name === "AbortError") return;
      this.connection.textContent = "Live updates unavailable: reconnecting…";
    }
    this.follow(first);
    await this.reload().catch(quiet);
    this.ticker = setInterval(() => this.drawList(), TICK_MS);
    if (this.openUuid) await this.open(this.openUuid).catch(quiet);
  }

  stop() {
    clearInterval(this.ticker);
    this.keys.stop();
  }

  layout() {
    this.root = h(
      "div",
      { class: "inbox", "data-show": this.openUuid ? "conversation" : "list" },
      h("div", { class: "inbox-side" }, this.listPane.element, this.manager.element, this.activitySection()),
      this.pane.element,
      this.contextPane.element,
    );
    const keysHint = h("button", { type: "button", class: "quiet small keys-hint" }, "Keyboard shortcuts (?)");
    keysHint.addEventListener("click", () => this.keys.help());
    this.ctx.main.append(
      heading(`Inbox: ${this.ctx.chatbot.name}`),
      h("div", { class: "inbox-status" }, this.connection, this.banner, keysHint),
      this.note.element,
      this.root,
    );
  }

  activitySection() {
    return h(
      "section",
      { class: "card inbox-activity", "aria-labelledby": "activity-h" },
      h("h2", { id: "activity-h" }, "Activity"),
      this.activity,
    );
  }

  /** The people a conversation may be assigned to: the account's members who take conversations (any role may
   * read them); the caller alone when they cannot be read. */
  async readPeople() {
    const self = this.me?.user ? [{ uuid: this.me.user.uuid, name: this.me.user.name, email: this.me.user.email }] : [];
    try {
      this.people = (await get("/inbox/people", { signal: this.ctx.signal })).people;
    } catch {
      this.people = self;
    }
  }

  saveFilters() {
    sessionStorage.setItem(FILTERS, JSON.stringify({ ...this.filters, q: "" }));
  }

  /** Reads the inbox again (one read at a time; events during a read cause one more). */
  async reload() {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        const query = { ...this.filters };
        const found = await get(`/chatbot/${this.bot}/inbox`, { signal: this.ctx.signal, query });
        this.entries = found.sessions;
        for (const entry of this.entries) this.known.set(entry.uuid, entry);
        this.counts = found.counts ?? {};
        this.total = found.unread;
        this.drawList();
      } while (this.again);
    })();
    try {
      await this.loading;
    } finally {
      this.loading = null;
    }
  }

  drawList() {
    this.listPane.draw(this.entries, this.counts, this.openUuid);
    const waiting = this.counts.waiting ?? this.entries.filter((entry) => entry.waiting_since).length;
    const live = this.entries.filter((entry) => entry.live_chat).length;
    const parts = [waiting ? `${plural(waiting, "visitor")} waiting for a person` : "Nobody is waiting"];
    if (live) parts.push(`${plural(live, "live chat")} on`);
    if (this.total) parts.push(`${plural(this.total, "unread message")}`);
    this.banner.textContent = `${parts.join(", ")}.`;
    this.banner.dataset.waiting = String(waiting);
    announceUnread(this.bot, this.total ?? 0);
  }

  async open(uuid) {
    this.openUuid = uuid;
    history.replaceState(null, "", `#/bot/${this.bot}/inbox/${uuid}`);
    this.root.dataset.show = "conversation";
    this.drawList();
    await post(`/session/${uuid}/seen`, undefined, { signal: this.ctx.signal });
    await this.reload();
    await this.refreshOpen();
    this.pane.title.focus();
  }

  /** At 360 px: back from the conversation to the list, on the row that was open. */
  showList() {
    this.root.dataset.show = "list";
    this.listPane.list.querySelector(`button[data-session="${this.openUuid}"]`)?.focus();
  }

  /** `j` / `k`: the next or previous conversation of the list. */
  async step(delta) {
    if (!this.entries.length) return;
    const at = this.entries.findIndex((entry) => entry.uuid === this.openUuid);
    const next = at < 0 ? (delta > 0 ? 0 : this.entries.length - 1) : at + delta;
    if (next < 0 || next >= this.entries.length) return;
    await this.open(this.entries[next].uuid);
  }

  /** After this operator's own change: the list and the open conversation as they are now. */
  async changed() {
    await this.reload();
    await this.refreshOpen();
  }

  async refreshOpen() {
    if (!this.openUuid) return;
    const uuid = this.openUuid;
    const options = { signal: this.ctx.signal };
    const optional = (path, fallback) => get(path, options).catch((error) => {
      if (error.name === "AbortError") throw error;
      return fallback;
    });
    const [session, messages, notes, context] = await Promise.all([
      get(`/session/${uuid}`, options),
      get(`/session/${uuid}/messages`, options),
      optional(`/session/${uuid}/notes`, []),
      optional(`/session/${uuid}/context`, null),
    ]);
    if (uuid !== this.openUuid) return;
    const entry = this.known.get(uuid) ?? (await this.findAnywhere(uuid));
    if (uuid !== this.openUuid) return;
    this.context = context;
    const noteList = Array.isArray(notes) ? notes : (notes?.notes ?? []);
    this.pane.draw({ session, messages, notes: noteList, entry });
    this.contextPane.draw(context, messages);
  }

  /** A conversation opened from a link that the current tab does not list: its entry from the widest list. */
  async findAnywhere(uuid) {
    const query = { view: "all", status: "all" };
    const found = await get(`/chatbot/${this.bot}/inbox`, { signal: this.ctx.signal, query });
    const entry = found.sessions.find((item) => item.uuid === uuid);
    if (entry) this.known.set(uuid, entry);
    return entry;
  }

  /** What a change said (a `Work` answer, or an event's data) of a conversation the list may no longer hold. */
  learn(uuid, work) {
    const entry = this.known.get(uuid);
    if (!entry) return;
    const assignee =
      "assignee_uuid" in work
        ? work.assignee_uuid && { uuid: work.assignee_uuid, name: work.assignee_name ?? "" }
        : work.assignee;
    this.known.set(uuid, {
      ...entry,
      ...(work.status ? { status: work.status, snoozed_until: work.snoozed_until ?? null } : {}),
      ...(assignee !== undefined ? { assignee: assignee || null } : {}),
    });
  }

  logActivity(text, time) {
    this.activity.prepend(h("li", {}, `${time ? new Date(time).toLocaleTimeString() : ""} ${text}`.trim()));
    while (this.activity.children.length > 50) this.activity.lastChild.remove();
  }

  async onEvent({ event, data, id }) {
    if (id) this.lastId = id;
    const describe = DESCRIBE[event];
    if (!describe || !data?.session_uuid) return;
    const text = describe(data);
    if (text) this.logActivity(text, data.created_at);
    if (event === ChatbotEventKind.CONVERSATION_ASSIGNED || event === ChatbotEventKind.CONVERSATION_STATUS) {
      this.learn(data.session_uuid, data);
    }
    const opened = data.session_uuid === this.openUuid;
    // The operator has the conversation open: what the visitor writes there is read as it comes.
    if (opened && VISITOR_EVENTS.includes(event)) {
      await post(`/session/${data.session_uuid}/seen`, undefined, { signal: this.ctx.signal });
    }
    await this.reload();
    if (opened && event !== ChatbotEventKind.CONVERSATION_SEEN) await this.refreshOpen();
  }

  async connect() {
    const headers = this.lastId ? { "Last-Event-ID": this.lastId } : {};
    const response = await openStream("GET", `/chatbot/${this.bot}/events`, { headers, signal: this.ctx.signal });
    this.connection.dataset.state = "live";
    this.connection.textContent = "Live updates on.";
    return response;
  }

  async follow(first) {
    let response = first;
    let failures = 0;
    while (!this.ctx.signal.aborted) {
      try {
        response ??= await this.connect();
        failures = 0;
        for await (const event of readEvents(response)) {
          await this.onEvent(event).catch((error) => error.name !== "AbortError" && this.note.error(error));
        }
      } catch (error) {
        if (this.ctx.signal.aborted || error.status === 401 || error.status === 404) return;
      }
      response = null;
      this.connection.dataset.state = "down";
      this.connection.textContent = "Live updates interrupted: reconnecting…";
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]));
      await this.reload().catch(() => {}); // what happened while it was down
    }
  }
}
