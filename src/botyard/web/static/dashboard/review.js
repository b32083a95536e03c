// The review queue (GET /chatbot/{uuid}/review): the answers to look at (refused, unsure, handed to a person, rated
// down), grouped by meaning, the group most visitors met first. Each group is fixed in one step (its answer becomes a
// Q&A pair: POST .../review/fix) or closed as right (POST .../review/accept). A fix replaces a pair's answer only
// when the owner ticks it, and only the question's own pair (`qa_pair.same_question`), named with its current
// answer: a pair that only lent the reply a sentence answers another question and is never offered. What a person
// replied in live chat is shown as what it was, a reply to one visitor, never the answer box's text.
import { renderMarkdown } from "/static/shared/markdown.js";
import { get, post } from "./api.js";
import { badge, busy, checkbox, clear, field, formatDate, h, heading, notice, uid } from "./ui.js";

const REASONS = {
  refused: "no answer",
  unsure: "unsure",
  handed_off: "asked for a person",
  thumbs_down: "rated down",
};
const PAGE = 50;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function item(bot, entry) {
  const person = entry.operator_reply
    ? h("p", { class: "sub operator", dir: "auto" }, "A person replied to this visitor in live chat: ", h("q", {}, entry.operator_reply))
    : null;
  return h(
    "li",
    { class: "review-item" },
    h("p", { class: "asked", dir: "auto" }, h("strong", {}, entry.question)),
    h("div", { class: "reply", dir: "auto" }, entry.reply ? renderMarkdown(entry.reply, { imageHosts: [] }) : "(no reply)"),
    person,
    h(
      "p",
      { class: "sub" },
      `${REASONS[entry.reason] ?? entry.reason}, ${formatDate(entry.asked_at)}. `,
      h("a", { href: `#/bot/${bot}/conversations/${entry.session_uuid}` }, "Open the conversation"),
    ),
  );
}

function groupCard(bot, group, actions) {
  const titleId = uid("q");
  const answer = h("textarea", { rows: "3", required: true, maxlength: "100000", dir: "auto" });
  const pairs = group.items.map((entry) => entry.qa_pair).filter(Boolean);
  const own = pairs.find((found) => found.same_question); // the only kind a fix may replace
  const edit = own ? checkbox(`Replace the answer of the Q&A pair “${own.question}” instead of adding a pair`, false) : null;
  const current = own
    ? h(
        "div",
        { class: "qa-pair", dir: "auto" },
        h("p", { class: "sub" }, `The Q&A pair “${own.question}” answers now:`),
        h("blockquote", {}, renderMarkdown(own.answer, { imageHosts: [] })),
      )
    : pairs.length
      ? h(
          "p",
          { class: "sub qa-pair" },
          `The reply quoted the Q&A pair “${pairs[0].question}”, which answers another question: saving adds a new Q&A pair and leaves it as it is.`,
        )
      : null;
  const save = h("button", { type: "submit", class: "primary" }, "Save answer");
  const right = h("button", { type: "button", "data-needs": "knowledge", onclick: () => actions.accept(group, right) }, "This answer is right");
  const form = h(
    "form",
    { class: "answer-form", "data-needs": "knowledge" },
    field("Right answer", answer, "The chatbot answers this question with it from now on."),
    current,
    edit?.element,
    h("div", { class: "actions" }, save, right),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    actions.fix(group, answer.value.trim(), edit?.input.checked ? own.uuid : null, save);
  });
  const met = group.visitors === 1 ? "1 visitor" : `${group.visitors} visitors`;
  return h(
    "li",
    { class: "card review", "aria-labelledby": titleId, "data-count": String(group.count) },
    h("h2", { id: titleId, dir: "auto" }, group.question),
    h(
      "p",
      { class: "asked" },
      h("strong", { class: "count" }, `${met}, ${plural(group.count, "answer")}`),
      " ",
      ...group.reasons.map((reason) => badge(REASONS[reason] ?? reason)),
    ),
    h("ul", { class: "review-items", "aria-label": "Answers" }, ...group.items.slice(0, 5).map((entry) => item(bot, entry))),
    form,
  );
}

export async function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const summary = h("p", { class: "summary" });
  const list = h("ul", { class: "review-list", "aria-label": "Answers to review" });
  const refresh = h("button", { type: "button" }, "Refresh");
  const uuids = (group) => group.items.map((entry) => entry.message_uuid);

  async function load() {
    const found = await get(`/chatbot/${bot}/review`, { query: { limit: PAGE }, signal: ctx.signal });
    const shown = found.groups.length < found.total ? ` (the ${PAGE} met most shown)` : "";
    summary.textContent = found.total
      ? `${plural(found.items, "answer")} to review in ${plural(found.total, "group")}${shown}.`
      : "Nothing to review: no answer was refused, unsure, handed to a person or rated down.";
    clear(list, ...found.groups.map((group) => groupCard(bot, group, actions)));
  }

  const actions = {
    fix(group, answer, pair, button) {
      busy(button, note, async () => {
        const body = { message_uuids: uuids(group), answer };
        if (pair) body.data_source_uuid = pair;
        const done = await post(`/chatbot/${bot}/review/fix`, body, { signal: ctx.signal });
        await load();
        note.ok(
          `${pair ? "Q&A pair updated" : "Q&A pair added"}: “${done.data_source.title}”. ` +
            "The chatbot answers with it as soon as it is processed.",
        );
      });
    },
    accept(group, button) {
      busy(button, note, async () => {
        await post(`/chatbot/${bot}/review/accept`, { message_uuids: uuids(group) }, { signal: ctx.signal });
        await load();
        note.ok(`Closed “${group.question}” as right.`);
      });
    },
  };
  refresh.addEventListener("click", () => busy(refresh, note, load));

  await load();
  ctx.main.append(
    heading(`Review: ${ctx.chatbot.name}`),
    h(
      "p",
      { class: "lead" },
      "Answers your visitors did not get, or did not like, grouped by meaning, the most met first. " +
        "Write the right answer once and the chatbot gives it from now on.",
    ),
    h("div", { class: "actions" }, refresh),
    summary,
    note.element,
    list,
  );
}
