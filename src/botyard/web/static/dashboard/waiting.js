// Visitors waiting for a person, announced on every dashboard page (not only the Inbox): the shell asks the API
// every few seconds for the waiting conversations of all the account's chatbots, shows their count as a badge that
// links to the longest waiting one, and, once the operator allowed it (a click: browsers ask only after one), a
// system notification for each visitor who starts waiting while the dashboard is open.
import { csrfToken, get, getKey } from "./api.js";
import { h } from "./ui.js";

const POLL_MS = 5000;

export function waitingWatch() {
  // A link that is also a polite live region: a role of "status" would hide from assistive technology that it is a link.
  const badge = h("a", { class: "waiting-badge", "aria-live": "polite", hidden: true });
  const allow = h("button", { type: "button", class: "quiet", hidden: true }, "Notify me");
  allow.title = "Show a notification when a visitor asks for a person";
  const known = new Set();
  let first = true;

  const canAsk = () => "Notification" in window && Notification.permission === "default";
  allow.addEventListener("click", async () => {
    await Notification.requestPermission();
    allow.hidden = !canAsk();
  });

  function show(found) {
    const count = found.sessions.length;
    badge.hidden = count === 0;
    if (!count) return;
    const oldest = found.sessions[0];
    badge.textContent = count === 1 ? "1 visitor waiting" : `${count} visitors waiting`;
    badge.href = `#/bot/${oldest.chatbot_uuid}/inbox/${oldest.session_uuid}`;
    badge.title = `${oldest.chatbot_name}: ${oldest.preview}`;
  }

  function announce(session) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    const note = new Notification(`A visitor is waiting: ${session.chatbot_name}`, {
      body: session.preview,
      tag: session.session_uuid,
    });
    note.addEventListener("click", () => {
      window.focus();
      location.hash = `#/bot/${session.chatbot_uuid}/inbox/${session.session_uuid}`;
    });
  }

  async function poll() {
    try {
      if (!getKey() && !csrfToken()) { // signed in by neither a key nor a session cookie
        badge.hidden = allow.hidden = true;
        first = true;
        known.clear();
        return;
      }
      allow.hidden = !canAsk();
      const found = await get("/inbox/waiting");
      show(found);
      for (const session of found.sessions) {
        if (!first && !known.has(session.session_uuid)) announce(session);
        known.add(session.session_uuid);
      }
      first = false; // those waiting when the dashboard opened are in the badge, not announced one by one
      badge.parentElement.dataset.checked = "true";
    } catch {
      // a hint only: the Inbox page says what failed
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  return { element: h("div", { class: "waiting" }, badge, allow), start: poll };
}
