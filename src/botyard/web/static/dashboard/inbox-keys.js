// The inbox without a mouse: one key per action, heard on the page but never while the person types in a field (a
// key that reaches a textarea, an input or a select is theirs), nor with Ctrl, Alt or Meta (the browser's own).
import { h } from "./ui.js";

export const SHORTCUTS = [
  ["j", "Next conversation", (inbox) => inbox.step(1)],
  ["k", "Previous conversation", (inbox) => inbox.step(-1)],
  ["r", "Reply to the customer", (inbox) => inbox.pane.compose("reply")],
  ["n", "Write a private note", (inbox) => inbox.pane.compose("note")],
  ["a", "Assign to me", (inbox) => inbox.pane.act("assign")],
  ["e", "Resolve", (inbox) => inbox.pane.act("resolve")],
  ["h", "Hand back to the bot", (inbox) => inbox.pane.act("handBack")],
  ["?", "Show these shortcuts", (inbox) => inbox.keys.help()],
];
const EXTRA = [
  ["/", "In the reply box: insert a canned reply (arrows, then Enter)"],
  ["Esc", "Leave the reply box (the keys above work again)"],
];

const typing = (target) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));

export class InboxKeys {
  constructor(inbox) {
    this.inbox = inbox;
    this.listener = (event) => this.onKey(event);
    this.dialog = null;
  }

  start() {
    document.addEventListener("keydown", this.listener);
  }

  stop() {
    document.removeEventListener("keydown", this.listener);
    this.dialog?.close();
  }

  onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    if (typing(event.target)) {
      if (event.key === "Escape" && event.target.closest?.(".inbox")) event.target.blur();
      return;
    }
    if (document.querySelector("dialog[open]") && event.key !== "?") return;
    const found = SHORTCUTS.find(([key]) => key === event.key);
    if (!found) return;
    event.preventDefault();
    Promise.resolve(found[2](this.inbox)).catch((error) => error?.name !== "AbortError" && this.inbox.note.error(error));
  }

  help() {
    if (this.dialog?.open) return this.dialog.close();
    const rows = [...SHORTCUTS.map(([key, text]) => [key, text]), ...EXTRA].map(([key, text]) =>
      h("tr", {}, h("th", { scope: "row" }, h("kbd", {}, key)), h("td", {}, text)),
    );
    const close = h("button", { type: "button", class: "primary" }, "Close");
    this.dialog = h(
      "dialog",
      { class: "confirm shortcuts", "aria-labelledby": "keys-h" },
      h("h2", { id: "keys-h" }, "Keyboard shortcuts"),
      h("table", {}, h("tbody", {}, ...rows)),
      h("div", { class: "actions" }, close),
    );
    close.addEventListener("click", () => this.dialog.close());
    this.dialog.addEventListener("close", () => this.dialog?.remove());
    document.body.append(this.dialog);
    this.dialog.showModal();
    close.focus();
  }
}
