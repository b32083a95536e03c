// The inbox's opened conversation: its transcript, take over / dismiss / end, and the operator's reply box.
import { ApiError, post } from "./api.js";
import { sessionBadges } from "./conversations.js";
import { transcript } from "./transcript.js";
import { busy, clear, field, formatDate, h, notice } from "./ui.js";

export class SessionPane {
  constructor(inbox) {
    this.inbox = inbox;
    this.element = h("section", { class: "card", "aria-labelledby": "session-h" });
    this.title = h("h2", { id: "session-h", tabindex: "-1" }, "No conversation open");
    this.state = h("p", { role: "status", class: "status" });
    this.log = h("div", { class: "transcript", role: "log", "aria-live": "polite", "aria-label": "Transcript" });
    this.take = h("button", { type: "button", class: "primary" }, "Take over");
    this.dismiss = h("button", { type: "button" }, "Dismiss request");
    this.end = h("button", { type: "button", class: "danger" }, "End live chat");
    this.reply = h("textarea", { rows: "3", required: true });
    this.send = h("button", { type: "submit", class: "primary" }, "Send reply");
    this.replyForm = h("form", { class: "composer", "data-needs": "live" }, field("Reply", this.reply), this.send);
    this.note = notice();
    this.badges = h("span", { class: "actions" });
    this.shown = false;
    this.bind();
    clear(this.element, this.title, h("p", { class: "hint" }, "Open a conversation from the list."));
  }

  show() {
    if (this.shown) return;
    this.shown = true;
    const actions = h("div", { class: "actions" }, this.take, this.dismiss, this.end);
    clear(this.element, this.title, this.badges, this.state, this.log, actions, this.replyForm, this.note.element);
  }

  /** `who`: who the conversation is with and where ("Ada on Parcel bot (Telegram)"), when the list says. */
  draw(session, messages, who) {
    const live = Boolean(session.meta.live_chat);
    const requested = Boolean(session.meta.human_requested);
    const since = `since ${formatDate(session.created_at)}`;
    this.title.textContent = who ? `${who[0].toUpperCase()}${who.slice(1)}, ${since}` : `Visitor ${since}`;
    clear(this.log, ...transcript(messages));
    if (!messages.length) this.log.append(h("p", { class: "empty" }, "No messages yet."));
    this.log.scrollTop = this.log.scrollHeight;
    if (live) this.state.textContent = "You are chatting live: the AI is paused.";
    else if (requested) this.state.textContent = "The visitor asked for a person.";
    else this.state.textContent = "The AI is answering this conversation.";
    this.take.hidden = live;
    this.dismiss.hidden = live || !requested;
    this.end.hidden = !live;
    this.replyForm.hidden = !live;
    clear(this.badges, ...sessionBadges(session.meta));
  }

  bind() {
    const path = (action) => `/session/${this.inbox.openUuid}/live-chat/${action}`;
    this.take.addEventListener("click", () => busy(this.take, this.note, () => this.takeOver(path("start"))));
    this.dismiss.addEventListener("click", () =>
      busy(this.dismiss, this.note, async () => {
        await this.inbox.dismiss(this.inbox.openUuid);
        this.note.ok("Request dismissed: the AI goes on answering.");
      }),
    );
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
