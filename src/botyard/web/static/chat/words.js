// The chat page's own words, in the chatbot's language: the server sends them with the page's config
// (`texts`, from botyard/i18n/texts.json); English until then, or where a language lacks one.

const ENGLISH = {
  send: "Send",
  message: "Message",
  close_chat: "Close chat",
  conversation: "Conversation",
  suggestions: "Suggested questions",
  placeholder: "Ask a question…",
  you: "You",
  answer: "Answer",
  operator: "Operator",
  notice: "Notice",
  sources: "Sources",
  load_failed: "The conversation could not be loaded.",
  connection_failed: "The connection failed. Please try again.",
  incomplete: "The answer could not be completed.",
  interrupted: "The answer was interrupted. Please try again.",
  too_many: "Too many messages. Please wait a moment.",
  unavailable: "This chat is not available right now.",
  failed: "Something went wrong. Please try again.",
  rate_answer: "Was this answer helpful?",
  helpful: "Helpful",
  not_helpful: "Not helpful",
  feedback_comment: "What was wrong? (optional)",
  feedback_send: "Send feedback",
  feedback_thanks: "Thank you for your feedback.",
  contact_title: "Leave us a message",
  contact_email: "Your email address",
  contact_message: "Your message",
  contact_send: "Send message",
  contact_thanks: "Thank you. We will write to you by email.",
};

let words = ENGLISH;

/** Takes the chatbot's words (the config's `texts`). */
export function useWords(texts) {
  words = { ...ENGLISH, ...(texts && typeof texts === "object" ? texts : {}) };
}

export function word(name) {
  return typeof words[name] === "string" ? words[name] : ENGLISH[name];
}
