// Live-chat inbox: the conversations that wait for a person (what they asked, for how long, what is unread) and the
// live ones, read from GET /chatbot/{uuid}/inbox again at every event of the chatbot's event stream (fetch + SSE
// with the Bearer key, resumed with Last-Event-ID), so no list or banner outlives what it shows. Open one (which
// marks it read for every operator), dismiss its request, take it over, reply, hand it back.
import { ChatbotEventKind } from "/static/shared/names.js";
import { readEvents } from "/static/shared/sse.js";
import { ApiError, get, openStream, post } from "./api.js";
import { channelLabel, channelsOf } from "./channel-names.js";
import { windowLine } from "./channel-window.js";
import { SessionPane } from "./inbox-pane.js";
import { busy, clear, h, heading, notice } from "./ui.js";

const RETRY_MS = [1000, 2000, 5000, 10000];
const TICK_MS = 30_000; // how often the waiting times move on
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
};
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

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

/** Who a conversation is with and where: "Ada on Parcel bot (Telegram)", "a visitor on the web". */
export function whoAndWhere(entry, channels) {
  if (!entry?.channel) return "a visitor on the web";
  const channel = channels.get(entry.channel.uuid);
  const who = entry.channel.user_name || entry.channel.user_id || "a customer";
  return `${who} on ${channel ? channelLabel(channel) : "a deleted channel"}`;
}

/** Tells the shell the chatbot's unread total (the badge on the Inbox link). */
export function announceUnread(chatbot, unread) {
  window.dispatchEvent(new CustomEvent("botyard:inbox-unread", { detail: { chatbot, unread } }));
}

export async function render(ctx) {
  const inbox = new Inbox(ctx);
  await inbox.start();
  return () => clearInterval(inbox.ticker);
}

class Inbox {
  constructor(ctx) {
    this.ctx = ctx;
    this.bot = ctx.chatbot.uuid;
    this.entries = [];
    this.channels = new Map();
    this.openUuid = ctx.params[1] ?? null;
    this.lastId = "";
    this.loading = null;
    this.again = false;
    this.note = notice();
    this.banner = h("p", { class: "banner", role: "status", "aria-label": "Inbox summary" });
    this.connection = h("p", { class: "connection", role: "status", "data-state": "down" }, "Connecting…");
    this.list = h("ul", { class: "session-list", "aria-label": "Sessions waiting for a person" });
    this.activity = h("ul", { class: "activity", role: "log", "aria-label": "Activity" });
    this.pane = new SessionPane(this);
  }

  async start() {
    this.layout();
    this.channels = await channelsOf(this.bot, this.ctx.signal);
    // Connect first: the stream starts from "now", so nothing that happens after the list is read is missed.
    let first = null;
    try {
      first = await this.connect();
    } catch (error) {
      if (error.name === "AbortError") return;
      this.connection.textContent = "Live updates unavailable: reconnecting…";
    }
    this.follow(first);
    await this.reload().catch((error) => error.name !== "AbortError" && this.note.error(error));
    this.ticker = setInterval(() => this.drawList(), TICK_MS);
    if (this.openUuid) {
      await this.open(this.openUuid).catch((error) => error.name !== "AbortError" && this.pane.note.error(error));
    }
  }

  layout() {
    const section = (id, title, ...body) =>
      h("section", { class: "card", "aria-labelledby": id }, h("h2", { id }, title), ...body);
    this.ctx.main.append(
      heading(`Inbox: ${this.ctx.chatbot.name}`),
      this.connection,
      this.banner,
      this.note.element,
      h(
        "div",
        { class: "split" },
        h("div", {}, section("waiting-h", "Waiting", this.list), section("activity-h", "Activity", this.activity)),
        this.pane.element,
      ),
    );
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
        const found = await get(`/chatbot/${this.bot}/inbox`, { signal: this.ctx.signal });
        this.entries = found.sessions;
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
    clear(this.list, ...this.entries.map((entry) => this.sessionItem(entry)));
    if (!this.entries.length) this.list.append(h("li", { class: "empty" }, "Nobody is waiting for a person."));
    const waiting = this.entries.filter((entry) => entry.waiting_since).length;
    const live = this.entries.filter((entry) => entry.live_chat).length;
    const parts = [waiting ? `${plural(waiting, "visitor")} waiting for a person` : "Nobody is waiting"];
    if (live) parts.push(`${plural(live, "live chat")} on`);
    if (this.total) parts.push(`${plural(this.total, "unread message")}`);
    this.banner.textContent = `${parts.join(", ")}.`;
    this.banner.dataset.waiting = String(waiting);
    announceUnread(this.bot, this.total ?? 0);
  }

  sessionItem(entry) {
    const state = entry.live_chat
      ? "live chat"
      : entry.waiting_since
        ? `waiting ${waited(entry.waiting_since)}`
        : "with the AI";
    const current = entry.uuid === this.openUuid ? "true" : undefined;
    const unread = entry.unread
      ? h("span", { class: "unread", "aria-label": `${entry.unread} unread` }, String(entry.unread))
      : null;
    const open = h(
      "button",
      { type: "button", class: "open", "data-session": entry.uuid, "aria-current": current },
      h(
        "span",
        { class: "preview", dir: "auto" },
        entry.preview || "No question yet",
        h("span", { class: "sub" }, `${state} · ${whoAndWhere(entry, this.channels)}${windowLine(entry)}`),
      ),
      unread,
    );
    open.addEventListener("click", () => this.open(entry.uuid));
    const dismiss = h("button", { type: "button", class: "small quiet", "aria-label": "Dismiss request" }, "Dismiss");
    dismiss.addEventListener("click", () => busy(dismiss, this.note, () => this.dismiss(entry.uuid)));
    return h("li", { "data-uuid": entry.uuid }, open, entry.waiting_since ? dismiss : null);
  }

  async dismiss(uuid) {
    try {
      await post(`/session/${uuid}/human-request/dismiss`);
    } catch (error) {
      // Dismissed or taken over meanwhile (by another operator): the list shows what it is now.
      if (!(error instanceof ApiError && error.status === 409)) throw error;
    }
    await this.reload();
    if (uuid === this.openUuid) await this.refreshOpen();
  }

  async open(uuid) {
    this.openUuid = uuid;
    history.replaceState(null, "", `#/bot/${this.bot}/inbox/${uuid}`);
    this.pane.show();
    this.drawList();
    await post(`/session/${uuid}/seen`, undefined, { signal: this.ctx.signal });
    await Promise.all([this.refreshOpen(), this.reload()]);
    this.pane.title.focus();
  }

  async refreshOpen() {
    if (!this.openUuid) return;
    const uuid = this.openUuid;
    const [session, messages] = await Promise.all([
      get(`/session/${uuid}`, { signal: this.ctx.signal }),
      get(`/session/${uuid}/messages`, { signal: this.ctx.signal }),
    ]);
    const entry = this.entries.find((found) => found.uuid === uuid);
    if (uuid === this.openUuid) this.pane.draw(session, messages, entry && whoAndWhere(entry, this.channels));
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
    const opened = data.session_uuid === this.openUuid;
    const visitor = [ChatbotEventKind.USER_MESSAGE, ChatbotEventKind.HUMAN_REQUESTED, ChatbotEventKind.CONTACT_FORM_SENT]
      .includes(event);
    // The operator has the conversation open: what the visitor writes there is read as it comes.
    if (opened && visitor) await post(`/session/${data.session_uuid}/seen`, undefined, { signal: this.ctx.signal });
    await Promise.all([this.reload(), opened && event !== ChatbotEventKind.CONVERSATION_SEEN && this.refreshOpen()]);
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
