// The reply box of the open conversation: a Reply / Note toggle (a note is the team's only: it never reaches the
// customer, and the box says so in its own colour), canned replies by typing `/`, Enter sends (Shift+Enter: a new
// line). A reply to a conversation the bot still has takes it over first (the AI stops answering it).
import { ApiError, post } from "./api.js";
import { CannedPopup } from "./canned.js";
import { busy, h, notice, uid } from "./ui.js";

export const NOTE_WARNING = "Private note: the customer does not see this";

export class Composer {
  /** `pane`: the conversation pane (`uuid()`, `live()`, `contact()`, `sent(mode)`). */
  constructor(pane, store) {
    this.pane = pane;
    this.mode = "reply";
    this.note = notice();
    this.area = h("textarea", { rows: "3", required: true, id: uid("compose") });
    this.label = h("label", { for: this.area.id }, "Reply");
    this.hint = h("p", { class: "hint composer-hint", id: uid("hint") });
    this.area.setAttribute("aria-describedby", this.hint.id);
    this.replyMode = h("button", { type: "button", class: "small", "data-mode": "reply" }, "Reply");
    this.noteMode = h("button", { type: "button", class: "small", "data-mode": "note" }, "Note");
    this.send = h("button", { type: "submit", class: "primary" }, "Send reply");
    // Made before the Enter handler below: the popup's Enter inserts a canned reply and stops there.
    this.popup = new CannedPopup(this.area, store, () => this.pane.contact());
    const toggle = h("div", { class: "mode-toggle", role: "group", "aria-label": "Write" }, this.replyMode, this.noteMode);
    this.element = h(
      "form",
      { class: "composer inbox-composer", "data-needs": "live", "data-mode": "reply" },
      toggle,
      h("div", { class: "field" }, this.label, h("div", { class: "canned-anchor" }, this.area, this.popup.list), this.hint),
      this.send,
      this.note.element,
    );
    this.bind();
    this.setMode("reply");
  }

  bind() {
    this.replyMode.addEventListener("click", () => this.setMode("reply", true));
    this.noteMode.addEventListener("click", () => this.setMode("note", true));
    this.element.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.area.value.trim();
      if (!text) return;
      busy(this.send, this.note, () => this.submit(text));
    });
    this.area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.element.requestSubmit();
      }
    });
  }

  setMode(mode, focus = false) {
    this.mode = mode;
    const note = mode === "note";
    this.element.dataset.mode = mode;
    this.replyMode.setAttribute("aria-pressed", String(!note));
    this.noteMode.setAttribute("aria-pressed", String(note));
    this.label.textContent = note ? "Private note" : "Reply";
    this.send.textContent = note ? "Add note" : "Send reply";
    this.hints();
    if (focus) this.area.focus();
  }

  /** What the box's words will do: a note is private; a reply to a conversation the bot has takes it over. */
  hints() {
    if (this.mode === "note") this.hint.textContent = `${NOTE_WARNING}. Type / for a canned reply.`;
    else if (this.pane.live()) this.hint.textContent = "The customer sees your reply. Type / for a canned reply.";
    else this.hint.textContent = "Sending takes the conversation over: the AI stops answering it. Type / for a canned reply.";
  }

  async submit(text) {
    const uuid = this.pane.uuid();
    if (this.mode === "note") {
      await post(`/session/${uuid}/note`, { text });
    } else {
      if (!this.pane.live()) await this.takeOver(uuid);
      await post(`/session/${uuid}/live-chat/message`, { text });
    }
    this.area.value = "";
    this.note.clear();
    await this.pane.sent(this.mode);
    this.area.focus();
  }

  async takeOver(uuid) {
    try {
      await post(`/session/${uuid}/live-chat/start`);
    } catch (error) {
      // Another operator (or tab) took it over meanwhile: the reply still goes, as part of that live chat.
      if (!(error instanceof ApiError && error.code === "live_chat_active")) throw error;
    }
  }
}
