// The end user's verdict on an answer: thumbs up or down under it, and after a thumbs down an optional comment.
// Sent to the widget API at once (a thumbs down counts even without a comment); sending again replaces it.

import { Rating } from "../shared/names.js";
import { element, errorText } from "./render.js";
import { word } from "./words.js";

const COMMENT_MAX_LENGTH = 1000; // the server's limit (botyard/chat/feedback/schemas.py)
const SVG = "http://www.w3.org/2000/svg";
const THUMB_UP =
  "M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.31l.95-4.57.03-.32a1.5 1.5 0 0 0-.44-1.06L13.17 1 6.59 7.59A1.96 1.96 0 " +
  "0 0 6 9v10a2 2 0 0 0 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z";

/**
 * Puts the rating controls at the end of the answer `entry` (message `uuid`), showing `verdict` (`{rating,
 * comment}`, or null). `send(uuid, {rating, comment})` resolves to the fetch Response; `notify(text)` shows a
 * failure to the person chatting.
 */
export function addFeedback(entry, uuid, verdict, { send, notify }) {
  entry.querySelector(".feedback")?.remove();
  const box = element("div", entry, "feedback");
  const bar = element("div", box, "feedback-bar");
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", word("rate_answer"));
  const up = thumb(bar, Rating.UP, word("helpful"));
  const down = thumb(bar, Rating.DOWN, word("not_helpful"));

  const status = element("p", box, "feedback-status");
  status.setAttribute("role", "status");
  let form = null; // the comment's form, made at the first thumbs down (until then the answer holds no more text)
  let lastComment = verdict?.comment ?? "";

  const showRating = (rating) => {
    up.setAttribute("aria-pressed", String(rating === Rating.UP));
    down.setAttribute("aria-pressed", String(rating === Rating.DOWN));
  };
  showRating(verdict?.rating ?? null);

  /** Sends the verdict; true when it was stored (a failure is shown, and the controls stay as they were). */
  const rate = async (rating, text) => {
    const controls = [up, down, ...(form ? form.elements : [])];
    for (const control of controls) control.disabled = true;
    try {
      const response = await send(uuid, { rating, comment: text });
      if (!response.ok) {
        notify(await errorText(response));
        return false;
      }
      showRating(rating);
      lastComment = text;
      notify("");
      return true;
    } catch {
      notify(word("connection_failed"));
      return false;
    } finally {
      for (const control of controls) control.disabled = false;
    }
  };

  const closeForm = (thanks) => {
    form?.remove();
    form = null;
    status.textContent = thanks ? word("feedback_thanks") : "";
  };

  up.addEventListener("click", async () => {
    if (await rate(Rating.UP, "")) closeForm(true);
  });
  down.addEventListener("click", async () => {
    // The thumbs down is stored at once (keeping an earlier comment); the comment is optional.
    if (!(await rate(Rating.DOWN, lastComment))) return;
    status.textContent = "";
    form ??= commentForm(box, status, lastComment, async (text) => {
      if (!(await rate(Rating.DOWN, text))) return;
      closeForm(true);
      down.focus(); // the form is gone: keep the keyboard near where it was
    });
    form.querySelector("textarea").focus();
  });
}

/** The optional comment after a thumbs down: a text box and its send button, put before `status`. */
function commentForm(box, status, text, submitted) {
  const form = document.createElement("form");
  form.className = "feedback-comment";
  box.insertBefore(form, status);
  const comment = element("textarea", form);
  Object.assign(comment, { rows: 2, maxLength: COMMENT_MAX_LENGTH, dir: "auto", placeholder: word("feedback_comment") });
  comment.setAttribute("aria-label", word("feedback_comment"));
  comment.value = text;
  const send = element("button", form);
  send.type = "submit";
  send.textContent = word("feedback_send");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submitted(comment.value.trim());
  });
  // Enter in the comment is a new line; Ctrl+Enter (or Cmd+Enter) sends it, as Enter would in a one-line box.
  comment.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  return form;
}

/** `send` for `addFeedback`: posts the verdict to the widget API, in the session `sessionPath()` names. */
export function feedbackSender(sessionPath, deviceId) {
  return (uuid, body) =>
    fetch(`${sessionPath()}/message/${encodeURIComponent(uuid)}/feedback`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...body, device_id: deviceId }),
    });
}

function thumb(parent, rating, label) {
  const button = element("button", parent, `thumb thumb-${rating}`);
  button.type = "button";
  button.title = label;
  button.setAttribute("aria-label", label);
  const icon = document.createElementNS(SVG, "svg");
  icon.setAttribute("viewBox", "0 0 24 24");
  icon.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", THUMB_UP);
  icon.append(path);
  button.append(icon);
  return button;
}
