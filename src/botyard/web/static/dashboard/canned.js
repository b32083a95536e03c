// Canned replies: the account's replies written once (GET /canned-replies), inserted in the reply box by typing `/`
// and a few letters of their shortcut (a filtered popup: arrows move, Enter or Tab inserts, Escape closes), and
// their small manager beside the inbox (list, add, edit, delete). `{{contact.name}}` becomes the person's name.
import { ApiError, get, post } from "./api.js";
import { busy, clear, confirmDialog, field, h, notice, uid } from "./ui.js";

const SHORTCUT = /^[a-z0-9_-]{1,64}$/;
const TOKEN = /(?:^|\s)\/([a-z0-9_-]*)$/; // a `/word` that ends at the caret
const MAX_SHOWN = 8;

/** The account's canned replies, read once and again after each change; `changed` callbacks redraw. */
export class CannedStore {
  constructor(signal) {
    this.signal = signal;
    this.replies = [];
    this.listeners = [];
  }

  async load() {
    const found = await get("/canned-replies", { signal: this.signal });
    const replies = Array.isArray(found) ? found : (found?.canned_replies ?? found?.replies ?? []);
    this.replies = [...replies].sort((a, b) => a.shortcut.localeCompare(b.shortcut));
    for (const listener of this.listeners) listener(this.replies);
    return this.replies;
  }

  /** Those whose shortcut starts with `word` first, then those whose shortcut or text contains it. */
  matching(word) {
    const lower = word.toLowerCase();
    const starts = this.replies.filter((reply) => reply.shortcut.startsWith(lower));
    const contains = this.replies.filter(
      (reply) => !starts.includes(reply) && `${reply.shortcut} ${reply.text}`.toLowerCase().includes(lower),
    );
    return [...starts, ...contains].slice(0, MAX_SHOWN);
  }
}

/** Fills the placeholders a reply may hold with what is known of the person (an unknown one is left out). */
export function fillPlaceholders(text, contact) {
  return text.replace(/\{\{\s*contact\.(name|email|phone)\s*\}\}/g, (_, key) => contact?.[key] ?? "");
}

/** The `/` popup of one textarea. `contact()` gives the open conversation's contact, for the placeholders. */
export class CannedPopup {
  constructor(area, store, contact = () => null) {
    this.area = area;
    this.store = store;
    this.contact = contact;
    this.shown = [];
    this.active = 0;
    this.list = h("ul", { class: "canned-popup", role: "listbox", id: uid("canned"), "aria-label": "Canned replies" });
    this.list.hidden = true;
    area.setAttribute("aria-autocomplete", "list");
    area.setAttribute("aria-controls", this.list.id);
    area.setAttribute("aria-expanded", "false");
    area.addEventListener("input", () => this.update());
    area.addEventListener("keydown", (event) => this.key(event));
    area.addEventListener("blur", () => setTimeout(() => this.close(), 150));
  }

  get open() {
    return !this.list.hidden;
  }

  token() {
    const before = this.area.value.slice(0, this.area.selectionStart);
    const match = TOKEN.exec(before);
    return match ? { word: match[1], start: before.length - match[1].length - 1 } : null;
  }

  update() {
    const token = this.token();
    this.shown = token ? this.store.matching(token.word) : [];
    if (!token) return this.close();
    this.active = 0;
    this.draw(token.word);
  }

  draw(word) {
    const items = this.shown.map((reply, index) => {
      const item = h(
        "li",
        { role: "option", id: `${this.list.id}-${index}`, "aria-selected": String(index === this.active) },
        h("span", { class: "shortcut" }, `/${reply.shortcut}`),
        h("span", { class: "text" }, reply.text),
      );
      item.addEventListener("mousedown", (event) => {
        event.preventDefault(); // keeps the focus in the textarea
        this.insert(reply);
      });
      return item;
    });
    const empty = this.store.replies.length
      ? `No canned reply matches /${word}.`
      : "No canned replies yet: add them under Canned replies.";
    clear(this.list, ...(items.length ? items : [h("li", { class: "empty", role: "presentation" }, empty)]));
    this.list.hidden = false;
    this.area.setAttribute("aria-expanded", "true");
    if (items.length) this.area.setAttribute("aria-activedescendant", items[this.active].id);
    else this.area.removeAttribute("aria-activedescendant");
  }

  close() {
    this.list.hidden = true;
    this.area.setAttribute("aria-expanded", "false");
    this.area.removeAttribute("aria-activedescendant");
  }

  key(event) {
    if (!this.open) return;
    const moves = { ArrowDown: 1, ArrowUp: -1 };
    if (event.key in moves && this.shown.length) {
      event.preventDefault();
      this.active = (this.active + moves[event.key] + this.shown.length) % this.shown.length;
      this.draw(this.token()?.word ?? "");
    } else if ((event.key === "Enter" || event.key === "Tab") && this.shown.length) {
      event.preventDefault();
      event.stopImmediatePropagation(); // Enter inserts the reply; it does not send
      this.insert(this.shown[this.active]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopImmediatePropagation();
      this.close();
    }
  }

  insert(reply) {
    const token = this.token();
    if (!token) return this.close();
    const text = fillPlaceholders(reply.text, this.contact());
    const value = this.area.value;
    const end = this.area.selectionStart;
    this.area.value = value.slice(0, token.start) + text + value.slice(end);
    const caret = token.start + text.length;
    this.area.setSelectionRange(caret, caret);
    this.close();
    this.area.dispatchEvent(new Event("input", { bubbles: true }));
  }
}

/** The manager: the replies with Edit and Delete, and a form that adds one or saves the one being edited. */
export class CannedManager {
  constructor(store) {
    this.store = store;
    this.editing = null;
    this.note = notice();
    this.list = h("ul", { class: "canned-list", "aria-label": "The team's canned replies" });
    this.shortcut = h("input", { type: "text", required: true, maxlength: "64", pattern: "[a-z0-9_-]{1,64}" });
    this.text = h("textarea", { rows: "3", required: true });
    this.save = h("button", { type: "submit", class: "primary small" }, "Add canned reply");
    this.cancel = h("button", { type: "button", class: "small", hidden: true }, "Cancel");
    this.form = h(
      "form",
      { class: "canned-form", "data-needs": "live" },
      field("Shortcut", this.shortcut, "Lower-case letters, digits, - and _: typed after / in the reply box."),
      field("Canned text", this.text, "{{contact.name}} becomes the person's name."),
      h("div", { class: "actions" }, this.save, this.cancel),
    );
    this.element = h(
      "details",
      { class: "card canned-manager" },
      h("summary", {}, h("h2", {}, "Canned replies")),
      this.list,
      this.form,
      this.note.element,
    );
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      busy(this.save, this.note, () => this.submit());
    });
    this.cancel.addEventListener("click", () => this.edit(null));
    store.listeners.push(() => this.draw());
  }

  draw() {
    const items = this.store.replies.map((reply) => {
      const edit = h("button", { type: "button", class: "small", "data-needs": "live" }, "Edit");
      edit.setAttribute("aria-label", `Edit /${reply.shortcut}`);
      edit.addEventListener("click", () => this.edit(reply));
      const remove = h("button", { type: "button", class: "small danger", "data-needs": "live" }, "Delete");
      remove.setAttribute("aria-label", `Delete /${reply.shortcut}`);
      remove.addEventListener("click", () => busy(remove, this.note, () => this.remove(reply)));
      return h(
        "li",
        { "data-shortcut": reply.shortcut },
        h("span", { class: "shortcut" }, `/${reply.shortcut}`),
        h("span", { class: "text" }, reply.text),
        h("span", { class: "actions" }, edit, remove),
      );
    });
    clear(this.list, ...(items.length ? items : [h("li", { class: "empty" }, "No canned replies yet.")]));
  }

  edit(reply) {
    this.editing = reply;
    this.shortcut.value = reply?.shortcut ?? "";
    this.text.value = reply?.text ?? "";
    this.save.textContent = reply ? "Save canned reply" : "Add canned reply";
    this.cancel.hidden = !reply;
    if (reply) this.shortcut.focus();
  }

  async submit() {
    const body = { shortcut: this.shortcut.value.trim(), text: this.text.value.trim() };
    if (!SHORTCUT.test(body.shortcut)) throw new Error("A shortcut is 1 to 64 lower-case letters, digits, - or _.");
    try {
      if (this.editing) await post(`/canned-reply/${this.editing.uuid}/update`, body);
      else await post("/canned-reply/create", body);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) throw new Error(`/${body.shortcut} exists already.`);
      throw error;
    }
    this.note.ok(this.editing ? `Saved /${body.shortcut}.` : `Added /${body.shortcut}.`);
    this.edit(null);
    await this.store.load();
  }

  async remove(reply) {
    if (!(await confirmDialog(`Delete the canned reply /${reply.shortcut}?`))) return;
    await post(`/canned-reply/${reply.uuid}/delete`);
    this.note.ok(`Deleted /${reply.shortcut}.`);
    if (this.editing?.uuid === reply.uuid) this.edit(null);
    await this.store.load();
  }
}
