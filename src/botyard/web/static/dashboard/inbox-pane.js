// The inbox's open conversation: who it is with, its status and assignee, the transcript with the team's private
// notes among its messages (marked, never sent), the actions (assign to me or to someone, pending, snooze, resolve,
// take over, hand back to the bot: the bot answers again and the conversation stays open) and the reply box.
import { ConversationStatus, Permission } from "/static/shared/names.js";
import { ApiError, post } from "./api.js";
import { sessionBadges } from "./conversations.js";
import { Composer, NOTE_WARNING } from "./inbox-composer.js";
import { channelName, personName, STATUS_LABEL } from "./inbox-list.js";
import { transcript } from "./transcript.js";
import { badge, busy, clear, confirmDialog, formatDate, h, notice, select, uid } from "./ui.js";

const SNOOZE_HOURS = 4;

/** A datetime-local value (the browser's time zone) `hours` from now. */
function later(hours) {
  const date = new Date(Date.now() + hours * 3_600_000);
  date.setSeconds(0, 0);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A private note, among the transcript's messages but unlike them. */
function noteArticle(note, deletable, remove) {
  const who = `${note.author_name || "Someone of the team"} · ${formatDate(note.created_at)}`;
  const button = deletable ? h("button", { type: "button", class: "small quiet", "aria-label": "Delete note" }, "Delete") : null;
  button?.addEventListener("click", () => remove(note, button));
  return h(
    "article",
    { class: "msg msg-note", "data-note": note.uuid, "aria-label": NOTE_WARNING },
    h("span", { class: "who" }, h("strong", {}, NOTE_WARNING), ` · ${who}`),
    h("p", { class: "plain", dir: "auto" }, note.text),
    button,
  );
}

export class SessionPane {
  constructor(inbox) {
    this.inbox = inbox;
    this.session = null;
    this.entry = null;
    this.note = notice();
    this.element = h("section", { class: "card inbox-conversation", "aria-labelledby": "session-h" });
    this.back = h("button", { type: "button", class: "small back-to-list" }, "← Back to the list");
    this.title = h("h2", { id: "session-h", tabindex: "-1" }, "No conversation open");
    this.facts = h("p", { class: "sub conversation-facts" });
    this.badges = h("span", { class: "actions" });
    this.state = h("p", { role: "status", class: "status" });
    this.log = h("div", { class: "transcript", role: "log", "aria-live": "polite", "aria-label": "Transcript" });
    this.buttons = {
      assign: h("button", { type: "button", "data-needs": "live" }, "Assign to me"),
      take: h("button", { type: "button", class: "primary", "data-needs": "live" }, "Take over"),
      handBack: h("button", { type: "button", "data-needs": "live" }, "Hand back to the bot"),
      pending: h("button", { type: "button", "data-needs": "live" }, "Mark pending"),
      snooze: h("button", { type: "button", "data-needs": "live", "aria-expanded": "false" }, "Snooze…"),
      resolve: h("button", { type: "button", class: "resolve", "data-needs": "live" }, "Resolve"),
      reopen: h("button", { type: "button", "data-needs": "live" }, "Reopen"),
    };
    this.assignee = select([], "", { id: uid("assignee") });
    this.until = h("input", { type: "datetime-local", id: uid("until"), required: true });
    this.snoozeForm = h(
      "form",
      { class: "inline-form snooze-form", hidden: true },
      h("div", { class: "field" }, h("label", { for: this.until.id }, "Snooze until"), this.until),
      h("button", { type: "submit" }, "Snooze"),
    );
    this.composer = new Composer(this, inbox.canned);
    this.bind();
    clear(this.element, this.back, this.title, h("p", { class: "hint" }, "Open a conversation from the list."));
  }

  uuid = () => this.inbox.openUuid;
  live = () => Boolean(this.session?.meta?.live_chat);
  contact = () => this.entry?.contact ?? this.inbox.context?.contact ?? null;
  status = () => this.session?.status ?? this.entry?.status ?? ConversationStatus.OPEN;
  assigned = () => this.session?.assignee ?? this.entry?.assignee ?? null;

  layout() {
    const b = this.buttons;
    const assignField = h(
      "span",
      { class: "assign-to", "data-needs": "live" },
      h("label", { for: this.assignee.id }, "Assignee"),
      this.assignee,
    );
    const work = h("div", { class: "actions conversation-actions", role: "toolbar", "aria-label": "Conversation" });
    work.append(b.assign, assignField, b.pending, b.snooze, b.resolve, b.reopen);
    const chat = h("div", { class: "actions" }, b.take, b.handBack);
    clear(
      this.element,
      h("div", { class: "conversation-head" }, this.back, this.title, this.facts, this.badges),
      work,
      this.snoozeForm,
      this.state,
      chat,
      this.log,
      this.composer.element,
      this.note.element,
    );
  }

  /** `found`: {session, messages, notes, entry}. */
  draw({ session, messages, notes, entry }) {
    if (!this.session) this.layout();
    this.session = session;
    this.entry = entry ?? (this.entry?.uuid === session.uuid ? this.entry : null);
    const view = { ...(this.entry ?? {}), channel: this.entry?.channel ?? session.meta?.channel ?? null };
    this.title.textContent = personName(
      this.entry ? view : { uuid: session.uuid, preview: messages.find((m) => m.query)?.query },
    );
    const status = this.status();
    const assignee = this.assigned();
    this.facts.textContent = [
      channelName(this.entry ?? { channel: session.meta?.channel }, this.inbox.channels),
      `since ${formatDate(session.created_at)}`,
      STATUS_LABEL[status] ?? status,
      assignee ? `assigned to ${assignee.name || "someone"}` : "unassigned",
    ].join(" · ");
    clear(this.badges, ...sessionBadges(session.meta), status !== ConversationStatus.OPEN ? badge(STATUS_LABEL[status] ?? status) : null);
    this.drawLog(messages, notes);
    this.drawState(status, assignee);
    this.composer.hints();
  }

  drawLog(messages, notes) {
    const me = this.inbox.me;
    const admin = !me?.user || ["owner", "admin"].includes(me.role);
    const rows = messages.map((message) => ({ at: message.created_at, nodes: transcript([message]) }));
    for (const note of notes) {
      const mine = note.author_uuid && note.author_uuid === me?.user?.uuid;
      rows.push({ at: note.created_at, nodes: [noteArticle(note, admin || mine, (n, b) => this.removeNote(n, b))] });
    }
    rows.sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime());
    clear(this.log, ...rows.flatMap((row) => row.nodes));
    if (!rows.length) this.log.append(h("p", { class: "empty" }, "No messages yet."));
    this.log.scrollTop = this.log.scrollHeight;
  }

  drawState(status, assignee) {
    const live = this.live();
    const requested = Boolean(this.session.meta.human_requested);
    if (live) this.state.textContent = "You are chatting live: the AI is paused.";
    else if (requested) this.state.textContent = "The visitor asked for a person.";
    else this.state.textContent = "The AI is answering this conversation.";
    const b = this.buttons;
    const me = this.inbox.me?.user;
    b.take.hidden = live;
    b.handBack.hidden = !live && !requested;
    b.assign.hidden = !me || assignee?.uuid === me.uuid;
    const resolved = status === ConversationStatus.RESOLVED;
    b.resolve.hidden = resolved;
    b.pending.hidden = status === ConversationStatus.PENDING || resolved;
    b.reopen.hidden = status === ConversationStatus.OPEN;
    this.drawAssignees(assignee);
  }

  drawAssignees(assignee) {
    const people = [...this.inbox.people];
    if (assignee && !people.some((person) => person.uuid === assignee.uuid)) people.push(assignee);
    const options = [["", "Nobody"], ...people.map((person) => [person.uuid, person.name || person.email])];
    clear(this.assignee, ...options.map(([value, text]) => h("option", { value }, text)));
    this.assignee.value = assignee?.uuid ?? "";
  }

  bind() {
    const b = this.buttons;
    const on = (button, action) => button.addEventListener("click", () => busy(button, this.note, action));
    this.back.addEventListener("click", () => this.inbox.showList());
    on(b.assign, () => this.assign({ me: true }, "Assigned to you."));
    on(b.take, () => this.takeOver());
    on(b.handBack, () => this.handBack());
    on(b.pending, () => this.setStatus({ status: ConversationStatus.PENDING }, "Pending: waiting for the customer."));
    on(b.resolve, () => this.setStatus({ status: ConversationStatus.RESOLVED }, "Resolved."));
    on(b.reopen, () => this.setStatus({ status: ConversationStatus.OPEN }, "Open again."));
    b.snooze.addEventListener("click", () => {
      this.snoozeForm.hidden = !this.snoozeForm.hidden;
      b.snooze.setAttribute("aria-expanded", String(!this.snoozeForm.hidden));
      if (!this.snoozeForm.hidden) {
        this.until.value = later(SNOOZE_HOURS);
        this.until.focus();
      }
    });
    this.snoozeForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const until = new Date(this.until.value);
      busy(this.snoozeForm.querySelector("button"), this.note, async () => {
        await this.setStatus(
          { status: ConversationStatus.SNOOZED, snoozed_until: until.toISOString() },
          `Snoozed until ${until.toLocaleString()}.`,
        );
        this.snoozeForm.hidden = true;
        b.snooze.setAttribute("aria-expanded", "false");
      });
    });
    this.assignee.addEventListener("change", () => {
      const uuid = this.assignee.value || null;
      const name = this.assignee.selectedOptions[0]?.textContent ?? "";
      busy(this.assignee, this.note, () => this.assign({ user_uuid: uuid }, uuid ? `Assigned to ${name}.` : "Unassigned."));
    });
  }

  /** What a key asks (inbox-keys.js): the same as the button, if the button is there to press. */
  async act(name) {
    const button = this.buttons[name];
    if (!this.session || !button || button.hidden || !this.inbox.ctx.can(Permission.LIVE)) return;
    button.click();
  }

  compose(mode) {
    if (!this.session || !this.inbox.ctx.can(Permission.LIVE)) return;
    this.composer.setMode(mode, true);
  }

  async assign(body, done) {
    this.inbox.learn(this.uuid(), await post(`/session/${this.uuid()}/assign`, body));
    this.note.ok(done);
    await this.inbox.changed();
  }

  async setStatus(body, done) {
    this.inbox.learn(this.uuid(), await post(`/session/${this.uuid()}/status`, body));
    this.note.ok(done);
    await this.inbox.changed();
  }

  async takeOver() {
    try {
      await post(`/session/${this.uuid()}/live-chat/start`);
      this.note.ok("You took over: the visitor sees your replies.");
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "live_chat_active")) throw error;
      this.note.ok("This conversation is already live.");
    }
    await this.inbox.changed();
    this.composer.setMode("reply", true);
  }

  /** Back to the bot, and the conversation stays open: a live chat ends, a request for a person is dismissed. */
  async handBack() {
    const uuid = this.uuid();
    try {
      if (this.live()) await post(`/session/${uuid}/live-chat/end`);
      else await post(`/session/${uuid}/human-request/dismiss`);
    } catch (error) {
      // Ended or dismissed meanwhile (by another operator): the pane shows what it is now.
      if (!(error instanceof ApiError && error.status === 409)) throw error;
    }
    this.note.ok("Handed back: the AI answers again.");
    await this.inbox.changed();
  }

  async removeNote(note, button) {
    if (!(await confirmDialog("Delete this private note?"))) return;
    await busy(button, this.note, async () => {
      await post(`/note/${note.uuid}/delete`);
      await this.inbox.refreshOpen();
    });
  }

  async sent(mode) {
    this.note.ok(mode === "note" ? "Note added: only the team sees it." : "");
    if (mode !== "note") this.note.clear();
    await this.inbox.changed();
  }
}
