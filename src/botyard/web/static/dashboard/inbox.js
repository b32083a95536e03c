// Live-chat inbox: sessions that asked for a person, kept current by the chatbot's event stream (fetch + SSE with
// the Bearer key, resumed with Last-Event-ID); open one, take it over, reply, hand it back.
import { ChatbotEventKind } from "/static/shared/names.js";
import { readEvents } from "/static/shared/sse.js";
import { ApiError, get, openStream, post } from "./api.js";
import { sessionBadges } from "./conversations.js";
import { transcript } from "./transcript.js";
import { busy, clear, field, formatDate, h, heading, notice } from "./ui.js";

const RETRY_MS = [1000, 2000, 5000, 10000];

export async function render(ctx) {
  await new Inbox(ctx).start();
}

/** One chatbot's inbox page: the waiting list, the activity log and the opened session's pane. */
class Inbox {
  constructor(ctx) {
    this.ctx = ctx;
    this.bot = ctx.chatbot.uuid;
    this.sessions = new Map(); // uuid -> {session, unread}
    this.openUuid = ctx.params[1] ?? null;
    this.lastId = "";
    this.note = notice();
    this.connection = h("p", { class: "connection", role: "status", "data-state": "down" }, "Connecting…");
    this.list = h("ul", { class: "session-list", "aria-label": "Sessions waiting for a person" });
    this.activity = h("ul", { class: "activity", role: "log", "aria-label": "Activity" });
    this.pane = new SessionPane(this);
  }

  async start() {
    this.layout();
    // Connect first: the stream starts from "now", so nothing that happens after the list is read is missed.
    let first = null;
    try {
      first = await this.connect();
    } catch (error) {
      if (error.name === "AbortError") return;
      this.connection.textContent = "Live updates unavailable: reconnecting…";
    }
    this.follow(first);
    try {
      const query = { human_requested: 1 };
      const flagged = await get(`/chatbot/${this.bot}/sessions`, { query, signal: this.ctx.signal });
      await Promise.all(flagged.map((item) => this.track(item.uuid)));
      if (this.openUuid && !this.sessions.has(this.openUuid)) await this.track(this.openUuid);
    } catch (error) {
      if (error.name === "AbortError") return;
      this.note.error(error);
    }
    this.drawList();
    if (this.openUuid) {
      await this.open(this.openUuid).catch((error) => error.name !== "AbortError" && this.pane.note.error(error));
    }
  }

  layout() {
    const waiting = h(
      "section",
      { class: "card", "aria-labelledby": "waiting-h" },
      h("h2", { id: "waiting-h" }, "Waiting"),
      this.list,
    );
    const activity = h(
      "section",
      { class: "card", "aria-labelledby": "activity-h" },
      h("h2", { id: "activity-h" }, "Activity"),
      this.activity,
    );
    this.ctx.main.append(
      heading(`Inbox: ${this.ctx.chatbot.name}`),
      this.connection,
      this.note.element,
      h("div", { class: "split" }, h("div", {}, waiting, activity), this.pane.element),
    );
  }

  drawList() {
    const items = [...this.sessions.values()].sort((a, b) => b.session.created_at.localeCompare(a.session.created_at));
    clear(this.list, ...items.map((item) => this.sessionItem(item)));
    if (!items.length) this.list.append(h("li", { class: "empty" }, "Nobody is waiting for a person."));
  }

  sessionItem({ session, unread }) {
    const meta = session.meta ?? {};
    const waiting = meta.live_chat ? "live" : meta.human_requested ? "waiting" : "with the AI";
    const current = session.uuid === this.openUuid ? "true" : undefined;
    const button = h(
      "button",
      { type: "button", "data-session": session.uuid, "aria-current": current },
      h("span", {}, `Visitor of ${formatDate(session.created_at)}`, h("span", { class: "sub" }, waiting)),
      unread ? h("span", { class: "unread", "aria-label": `${unread} new` }, String(unread)) : null,
    );
    button.addEventListener("click", () => this.open(session.uuid));
    return h("li", {}, button);
  }

  async track(uuid) {
    const session = await get(`/session/${uuid}`, { signal: this.ctx.signal });
    const known = this.sessions.get(uuid);
    this.sessions.set(uuid, { session, unread: known?.unread ?? 0 });
    return session;
  }

  async open(uuid) {
    this.openUuid = uuid;
    history.replaceState(null, "", `#/bot/${this.bot}/inbox/${uuid}`);
    this.pane.show();
    if (!this.sessions.has(uuid)) await this.track(uuid);
    this.sessions.get(uuid).unread = 0;
    this.drawList();
    await this.refreshOpen();
    this.pane.title.focus();
  }

  async refreshOpen() {
    if (!this.openUuid) return;
    const uuid = this.openUuid;
    const [session, messages] = await Promise.all([
      this.track(uuid),
      get(`/session/${uuid}/messages`, { signal: this.ctx.signal }),
    ]);
    if (uuid !== this.openUuid) return;
    this.pane.draw(session, messages);
    this.drawList();
  }

  logActivity(text, time) {
    this.activity.prepend(h("li", {}, `${time ? new Date(time).toLocaleTimeString() : ""} ${text}`.trim()));
    while (this.activity.children.length > 50) this.activity.lastChild.remove();
  }

  async onEvent({ event, data, id }) {
    if (id) this.lastId = id;
    if (event === "ping" || !data?.session_uuid) return;
    const uuid = data.session_uuid;
    const describe = {
      [ChatbotEventKind.HUMAN_REQUESTED]: "A visitor asked for a person.",
      [ChatbotEventKind.USER_MESSAGE]: `Visitor: ${data.query ?? ""}`,
      [ChatbotEventKind.LIVE_CHAT_STARTED]: "An operator took a conversation over.",
      [ChatbotEventKind.OPERATOR_MESSAGE]: "An operator replied.",
      [ChatbotEventKind.LIVE_CHAT_ENDED]: "A live chat ended.",
    }[event];
    if (!describe) return;
    this.logActivity(describe, data.created_at);
    await this.track(uuid);
    if (uuid === this.openUuid) await this.refreshOpen();
    else {
      const unread = [ChatbotEventKind.USER_MESSAGE, ChatbotEventKind.HUMAN_REQUESTED].includes(event);
      if (unread) this.sessions.get(uuid).unread += 1;
      this.drawList();
    }
    if (event === ChatbotEventKind.HUMAN_REQUESTED) this.note.ok("A visitor is waiting for a person.");
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
    }
  }
}

/** The opened session: its transcript, take over / end, and the operator's reply box. */
class SessionPane {
  constructor(inbox) {
    this.inbox = inbox;
    this.element = h("section", { class: "card", "aria-labelledby": "session-h" });
    this.title = h("h2", { id: "session-h", tabindex: "-1" }, "No conversation open");
    this.state = h("p", { role: "status", class: "status" });
    this.log = h("div", { class: "transcript", role: "log", "aria-live": "polite", "aria-label": "Transcript" });
    this.take = h("button", { type: "button", class: "primary" }, "Take over");
    this.end = h("button", { type: "button", class: "danger" }, "End live chat");
    this.reply = h("textarea", { rows: "3", required: true });
    this.send = h("button", { type: "submit", class: "primary" }, "Send reply");
    this.replyForm = h("form", { class: "composer" }, field("Reply", this.reply), this.send);
    this.note = notice();
    this.badges = h("span", { class: "actions" });
    this.shown = false;
    this.bind();
    clear(this.element, this.title, h("p", { class: "hint" }, "Open a conversation from the list."));
  }

  show() {
    if (this.shown) return;
    this.shown = true;
    const actions = h("div", { class: "actions" }, this.take, this.end);
    clear(this.element, this.title, this.badges, this.state, this.log, actions, this.replyForm, this.note.element);
  }

  draw(session, messages) {
    const live = Boolean(session.meta.live_chat);
    this.title.textContent = `Visitor of ${formatDate(session.created_at)}`;
    clear(this.log, ...transcript(messages));
    if (!messages.length) this.log.append(h("p", { class: "empty" }, "No messages yet."));
    this.log.scrollTop = this.log.scrollHeight;
    if (live) this.state.textContent = "You are chatting live: the AI is paused.";
    else if (session.meta.human_requested) this.state.textContent = "The visitor asked for a person.";
    else this.state.textContent = "The AI is answering this conversation.";
    this.take.hidden = live;
    this.end.hidden = !live;
    this.replyForm.hidden = !live;
    clear(this.badges, ...sessionBadges(session.meta));
  }

  bind() {
    const path = (action) => `/session/${this.inbox.openUuid}/live-chat/${action}`;
    this.take.addEventListener("click", () => busy(this.take, this.note, () => this.takeOver(path("start"))));
    this.end.addEventListener("click", () =>
      busy(this.end, this.note, async () => {
        await post(path("end"));
        this.note.ok("Live chat ended: the AI answers again.");
        await this.inbox.refreshOpen();
      }),
    );
    this.replyForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.reply.value.trim();
      if (!text) return;
      busy(this.send, this.note, async () => {
        await post(path("message"), { text });
        this.reply.value = "";
        this.note.clear();
        await this.inbox.refreshOpen();
        this.reply.focus();
      });
    });
    this.reply.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.replyForm.requestSubmit();
      }
    });
  }

  async takeOver(path) {
    try {
      await post(path);
      this.note.ok("You took over: the visitor sees your replies.");
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "live_chat_active")) throw error;
      this.note.ok("This conversation is already live.");
    }
    await this.inbox.refreshOpen();
    this.reply.focus();
  }
}
