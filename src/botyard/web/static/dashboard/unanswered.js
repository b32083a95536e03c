// Unanswered questions (GET /chatbot/{uuid}/unanswered): what the chatbot declined or answered on weak evidence,
// grouped by similarity. Each group takes an answer in one step (a Q&A source: POST .../unanswered/answer) or is
// dismissed (POST .../unanswered/dismiss).
import { get, post } from "./api.js";
import { UnansweredReason } from "/static/shared/names.js";
import { badge, busy, clear, field, formatDate, h, heading, notice, uid } from "./ui.js";

const REASONS = {
  [UnansweredReason.REFUSED]: "declined: nothing in the knowledge answers it",
  [UnansweredReason.MODEL_NO_ANSWER]: "the model had no answer",
  [UnansweredReason.NO_AGENT]: "no agent answers questions",
  [UnansweredReason.LOW_CONFIDENCE]: "answered on weak evidence",
};
const PAGE = 50;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function reasons(group) {
  return Object.entries(group.reasons).map(([reason, count]) =>
    badge(`${REASONS[reason] ?? reason}${group.count > 1 ? ` (${count})` : ""}`),
  );
}

function groupCard(group, actions) {
  const titleId = uid("q");
  const question = h("input", { type: "text", required: true, maxlength: "4000", value: group.question, dir: "auto" });
  const answer = h("textarea", { rows: "3", required: true, maxlength: "100000", dir: "auto" });
  const add = h("button", { type: "submit", class: "primary" }, "Add answer");
  const dismiss = h("button", { type: "button", onclick: () => actions.dismiss(group, dismiss) }, "Dismiss");
  const form = h(
    "form",
    { class: "answer-form" },
    field("Question", question, "Saved as the Q&A source's question; reword it if you like."),
    field("Answer", answer),
    h("div", { class: "actions" }, add, dismiss),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    actions.answer(group, { question: question.value.trim(), answer: answer.value.trim() }, add);
  });
  const asked = group.count === 1 ? "Asked once" : `Asked ${group.count} times`;
  const when =
    group.count === 1
      ? `on ${formatDate(group.last_asked)}`
      : `between ${formatDate(group.first_asked)} and ${formatDate(group.last_asked)}`;
  const wordings = group.variants.map((variant) => h("li", { dir: "auto" }, variant));
  const variants = wordings.length
    ? h("div", {}, h("p", { class: "sub" }, "Also asked as:"), h("ul", { class: "variants" }, ...wordings))
    : null;
  return h(
    "li",
    { class: "card unanswered", "aria-labelledby": titleId, "data-count": String(group.count) },
    h("h2", { id: titleId, dir: "auto" }, group.question),
    h("p", { class: "asked" }, h("strong", { class: "count" }, asked), ` ${when}. `, ...reasons(group)),
    group.resolved ? h("p", { class: "sub", dir: "auto" }, `Searched as: ${group.resolved}`) : null,
    variants,
    form,
  );
}

export async function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const summary = h("p", { class: "summary" });
  const list = h("ul", { class: "unanswered-list", "aria-label": "Unanswered questions" });
  const refresh = h("button", { type: "button" }, "Refresh");

  async function load() {
    const found = await get(`/chatbot/${bot}/unanswered`, { query: { limit: PAGE }, signal: ctx.signal });
    const shown = found.groups.length < found.total ? ` (the ${PAGE} most asked shown)` : "";
    summary.textContent = found.total
      ? `${plural(found.questions, "question")} in ${plural(found.total, "group")}${shown}.`
      : "No unanswered questions: every question so far found its answer.";
    clear(list, ...found.groups.map((group) => groupCard(group, actions)));
  }

  const actions = {
    answer(group, body, button) {
      busy(button, note, async () => {
        const payload = { question_uuids: group.question_uuids, answer: body.answer };
        if (body.question) payload.question = body.question;
        const done = await post(`/chatbot/${bot}/unanswered/answer`, payload, { signal: ctx.signal });
        await load();
        note.ok(
          `Answer added to the knowledge for “${done.data_source.title}” (${plural(done.resolved, "question")}). ` +
            "The chatbot answers it once the new Q&A source is processed.",
        );
      });
    },
    dismiss(group, button) {
      busy(button, note, async () => {
        const done = await post(`/chatbot/${bot}/unanswered/dismiss`, { question_uuids: group.question_uuids });
        await load();
        note.ok(`Dismissed “${group.question}” (${plural(done.dismissed, "question")}).`);
      });
    },
  };
  refresh.addEventListener("click", () => busy(refresh, note, load));

  await load();
  ctx.main.append(
    heading(`Unanswered: ${ctx.chatbot.name}`),
    h(
      "p",
      { class: "lead" },
      "Questions your chatbot declined or answered on weak evidence, grouped by similarity. " +
        "Add an answer and the chatbot answers them from now on.",
    ),
    h("div", { class: "actions" }, refresh),
    summary,
    note.element,
    list,
  );
}
