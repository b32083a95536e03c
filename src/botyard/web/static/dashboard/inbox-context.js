// The open conversation's context (GET /session/{uuid}/context): who the person is (with a link to their contact
// page), the channel, the page they were on, their earlier conversations, and for each of the bot's answers its
// sources and how sure it was. Beside the conversation when the screen is wide; a section that folds when narrow.
import { ConversationStatus } from "/static/shared/names.js";
import { typeLabel } from "./channel-names.js";
import { pageName } from "./inbox-list.js";
import { clear, formatDate, h } from "./ui.js";

const WIDE = "(min-width: 1100px)";
const CONTACT_PAGE = (uuid) => `#/contacts/${uuid}`; // the Contacts page (contacts.js) opens one

const fact = (term, ...value) => [h("dt", {}, term), h("dd", {}, ...value)];

/** How sure the bot was of an answer (`confidence` high, low or none; `unsure`, `refused`), in words. */
export function confidenceText(answer) {
  if (answer.refused) return "declined to answer (unsure)";
  const words = { high: "confident", low: "unsure (low confidence)", none: "unsure (nothing matched)" };
  if (answer.confidence && words[answer.confidence]) return words[answer.confidence];
  return answer.unsure ? "unsure" : "";
}

export class ContextPane {
  constructor(inbox) {
    this.inbox = inbox;
    this.body = h("div", { class: "context-body" });
    this.element = h(
      "details",
      { class: "card inbox-context", "aria-labelledby": "context-h" },
      h("summary", {}, h("h2", { id: "context-h" }, "Context")),
      this.body,
    );
    // Wide: always shown beside the conversation. Narrow: folded until asked, under the conversation.
    const wide = matchMedia(WIDE);
    const follow = () => {
      this.element.open = wide.matches;
    };
    follow();
    wide.addEventListener("change", follow);
    this.clear();
  }

  clear() {
    clear(this.body, h("p", { class: "hint" }, "The contact, their channel and earlier conversations show here."));
  }

  /** `messages`: the transcript, for the question each answer replied to. */
  draw(context, messages = []) {
    const contact = context?.contact;
    const facts = [];
    if (contact) {
      facts.push(...fact("Name", contact.name || "(not given)"));
      if (contact.email) facts.push(...fact("Email", h("a", { href: `mailto:${contact.email}` }, contact.email)));
      if (contact.phone) facts.push(...fact("Phone", contact.phone));
    }
    const channel = context?.channel;
    facts.push(...fact("Channel", channel ? channel.name || typeLabel(channel.type) : "Web (widget or API)"));
    if (channel?.name) facts.push(...fact("Type", typeLabel(channel.type)));
    if (context?.visitor_page) {
      const link = h("a", { href: context.visitor_page, target: "_blank", rel: "noopener noreferrer nofollow" });
      link.textContent = pageName(context.visitor_page);
      facts.push(...fact("Page", link));
    }
    const edit = contact
      ? h("p", {}, h("a", { href: CONTACT_PAGE(contact.uuid), class: "contact-link" }, "Open the contact"))
      : h("p", { class: "hint" }, "Not known as a contact yet.");
    clear(
      this.body,
      h("section", { "aria-label": "Contact" }, h("h3", {}, "Contact"), h("dl", { class: "facts" }, ...facts), edit),
      this.earlier(context?.earlier ?? []),
      this.answers(context?.answers ?? [], messages),
    );
  }

  earlier(items) {
    const list = items.map((item) => {
      const bot = item.chatbot_uuid ?? this.inbox.bot;
      const href = `#/bot/${bot}/inbox/${item.session_uuid}`;
      const where = [item.chatbot_name, item.channel_type ? typeLabel(item.channel_type) : "Web"];
      const status = item.status && item.status !== ConversationStatus.OPEN ? item.status : "";
      return h(
        "li",
        {},
        h("a", { href }, item.preview || "(no question)"),
        h("span", { class: "sub" }, [formatDate(item.created_at), ...where, status].filter(Boolean).join(" · ")),
      );
    });
    return h(
      "section",
      { "aria-label": "Earlier conversations" },
      h("h3", {}, "Earlier conversations"),
      list.length ? h("ul", { class: "earlier" }, ...list) : h("p", { class: "hint" }, "None."),
    );
  }

  answers(items, messages) {
    const asked = new Map(messages.map((message) => [message.uuid, message.query]));
    const list = items.map((answer, index) => {
      const sources = (answer.sources ?? []).map((source) =>
        h(
          "li",
          {},
          source.url
            ? h("a", { href: source.url, target: "_blank", rel: "noopener noreferrer nofollow" }, source.title || source.url)
            : source.title || "(untitled)",
        ),
      );
      const question = asked.get(answer.message_uuid);
      const sure = confidenceText(answer);
      return h(
        "li",
        { "data-message": answer.message_uuid, "data-unsure": String(answer.unsure === true) },
        h("span", { class: "answer-head" }, `Answer ${index + 1}${sure ? `: ${sure}` : ""}`),
        question ? h("span", { class: "sub", dir: "auto" }, `to “${question}”`) : null,
        sources.length ? h("ul", { class: "sources" }, ...sources) : h("span", { class: "sub" }, "No sources."),
      );
    });
    return h(
      "section",
      { "aria-label": "The bot's answers" },
      h("h3", {}, "The bot's answers"),
      list.length ? h("ol", { class: "answers" }, ...list) : h("p", { class: "hint" }, "The bot has not answered."),
    );
  }
}
