// Rendering of stored messages and answers (conversations, inbox, playground): Markdown and citations through the
// shared renderer, which agent answered (meta_json.agent_name / agent_type), and the visitor's verdict on it
// (feedback_json).
import { citationOf } from "/static/shared/citations.js";
import { renderMarkdown } from "/static/shared/markdown.js";
import { MessageKind, Rating } from "/static/shared/names.js";
import { formatDate, h } from "./ui.js";

const MARKER = /\[(\d+\.\d+)\]/g;

/** The cited markers of `text` in order of first appearance, numbered 1..n. */
export function numberCitations(text, cites) {
  const order = [];
  for (const [, marker] of text.matchAll(MARKER)) {
    if (cites[marker] && !order.includes(marker)) order.push(marker);
  }
  return order;
}

/** An answer's body (Markdown) followed by the numbered list of its sources; `links` maps markers to the links of
 * a stored message (its `meta_json.citation_links`: stored entries carry none). */
export function answerContent(text, cites = {}, links = {}) {
  const order = numberCitations(text, cites);
  const citations = new Map(
    order.map((marker) => [marker, citationOf(cites[marker], marker, links?.[marker])]),
  );
  const body = h("div", { class: "body", dir: "auto" }); // Arabic, Hebrew...: right to left
  body.append(
    renderMarkdown(text, {
      imageHosts: [],
      citations,
      citationNumber: (marker) => order.indexOf(marker) + 1 || order.length + 1,
    }),
  );
  const parts = [body];
  if (order.length) {
    const list = h("ol", { class: "citations", "aria-label": "Sources" });
    for (const marker of order) {
      const { url, title } = citations.get(marker);
      const link = url ? h("a", { href: url, target: "_blank", rel: "noopener noreferrer nofollow" }, title) : title;
      list.append(h("li", {}, link));
    }
    parts.push(list);
  }
  return parts;
}

export function agentLine(meta) {
  if (!meta?.agent_name) return null;
  const type = meta.agent_type ? ` (${meta.agent_type})` : "";
  const why = meta.routing?.reason ? ` · ${meta.routing.reason}` : "";
  // The relevance decision on the knowledge found, as hit testing shows it (score against what was required).
  const found = meta.relevance;
  const relevance = found
    ? ` · knowledge ${found.relevant ? "matched" : "not matched"} (${Number(found.score).toFixed(2)} of ` +
      `${Number(found.required).toFixed(2)} required)`
    : "";
  return h("p", { class: "agent-line" }, `Answered by ${meta.agent_name}${type}${why}${relevance}`);
}

/** The visitor's thumbs up or down on the answer, with their comment (`feedback_json`); null when none. */
export function feedbackLine(feedback) {
  if (feedback?.rating !== Rating.UP && feedback?.rating !== Rating.DOWN) return null;
  // Words, not thumb emoji: a machine without an emoji font shows those as empty boxes. The border colour repeats it.
  const verdict = feedback.rating === Rating.UP ? "Helpful (thumbs up)" : "Not helpful (thumbs down)";
  const when = feedback.created_at ? ` · ${formatDate(feedback.created_at)}` : "";
  return h(
    "div",
    { class: `feedback-line feedback-${feedback.rating}`, "data-rating": feedback.rating },
    h("p", {}, `Visitor's rating: ${verdict}${when}`),
    feedback.comment ? h("blockquote", { class: "plain", dir: "auto" }, feedback.comment) : null,
  );
}

const parse = (text) => {
  try {
    return JSON.parse(text || "{}") ?? {};
  } catch {
    return {};
  }
};

/** Who wrote an operator's row: the person's name, or "Operator" for a program with the API key. */
function operatorLabel(meta) {
  return typeof meta.operator_name === "string" && meta.operator_name ? `Operator ${meta.operator_name}` : "Operator";
}

function article(kind, who, time, ...content) {
  const label = h("span", { class: "who" }, who, time ? ` · ${formatDate(time)}` : "");
  return h("article", { class: `msg msg-${kind}` }, label, ...content);
}

/** The articles of one stored message (a user's query and the answer, or a live-chat row). */
export function messageArticles(message) {
  const meta = parse(message.meta_json);
  const cites = parse(message.cite_data_json);
  const at = message.created_at;
  switch (meta.kind) {
    case MessageKind.LIVE_CHAT_START:
    case MessageKind.LIVE_CHAT_END:
      return [article("announcement", "Announcement", at, h("p", { dir: "auto" }, message.response))];
    case MessageKind.OPERATOR:
      return [
        article("operator", operatorLabel(meta), at, h("p", { class: "plain", dir: "auto" }, message.response)),
      ];
    case MessageKind.LIVE_CHAT_USER:
      return [article("user", "Visitor", at, h("p", { class: "plain", dir: "auto" }, message.query))];
    case MessageKind.CONTACT_FORM: {
      const from = h("p", { class: "agent-line" }, `Left through the contact form; reply to ${meta.email ?? "(no address)"}`);
      return [article("user", "Visitor", at, h("p", { class: "plain", dir: "auto" }, message.query), from)];
    }
  }
  const out = [];
  if (message.query) out.push(article("user", "Visitor", at, h("p", { class: "plain", dir: "auto" }, message.query)));
  const notes = [];
  if (meta.interrupted) notes.push("The visitor left before the answer ended.");
  if (meta.error) notes.push(`Error: ${meta.error}`);
  const answer = article(
    "assistant",
    "Assistant",
    message.modified_at,
    ...answerContent(message.response || "", cites, meta.citation_links),
    agentLine(meta),
    ...notes.map((note) => h("p", { class: "agent-line" }, note)),
    feedbackLine(parse(message.feedback_json)),
  );
  answer.dataset.state = message.finish_reason === "streaming" ? "streaming" : "done";
  if (message.response || !message.query) out.push(answer);
  return out;
}

export function transcript(messages) {
  return messages.flatMap(messageArticles);
}
