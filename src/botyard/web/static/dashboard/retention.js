// The retention period of a chatbot's conversations: deleted once idle for longer (empty: kept forever).
import { get, post } from "./api.js";
import { busy, field, h, notice } from "./ui.js";

export function retentionForm(bot, signal) {
  const note = notice();
  const days = h("input", { type: "number", min: "1", max: "3650", step: "1", inputmode: "numeric" });
  const save = h("button", { type: "submit", "data-needs": "manage" }, "Save retention");
  const form = h(
    "form",
    { class: "card inline-form", "aria-labelledby": "retention-h" },
    h("h2", { id: "retention-h" }, "Retention"),
    field("Keep conversations for (days)", days, "After their last activity; empty keeps them forever."),
    save,
    note.element,
  );
  const show = (retention) => {
    days.value = retention.retention_days ?? "";
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(save, note, async () => {
      const value = days.value.trim() === "" ? null : Number(days.value);
      show(await post(`/chatbot/${bot}/conversations/retention`, { retention_days: value }));
      note.ok(value === null ? "Conversations are kept forever." : `Conversations idle for ${value} days are deleted.`);
    });
  });
  get(`/chatbot/${bot}/conversations/retention`, { signal }).then(show, (error) => {
    if (error.name !== "AbortError") note.error(error);
  });
  return form;
}
