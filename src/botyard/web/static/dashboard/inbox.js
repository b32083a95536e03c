// Live-chat inbox: sessions that asked for a person, kept current by the chatbot's event stream (fetch + SSE with
// the Bearer key, resumed with Last-Event-ID); open one, take it over, reply, hand it back.
import { ChatbotEventKind } from "/static/shared/names.js";
import { readEvents } from "/static/shared/sse.js";
import { ApiError, get, openStream, post } from "./api.js";
import { sessionBadges } from "./conversations.js";
import { transcript } from "./transcript.js";
import { busy, clear, field, formatDate, h, heading, notice } from "./ui.js";

const RETRY_MS = [1000, 2000, 5000, 10000];

export async function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const sessions = new Map(); // uuid -> {session, unread}
  let openUuid = ctx.params[1] ?? null;
  let lastId = "";

  const note = notice();
  const connection = h("p", { class: "connection", role: "status", "data-state": "down" }, "Connecting…");
  const list = h("ul", { class: "session-list", "aria-label": "Sessions waiting for a person" });
  const activity = h("ul", { class: "activity", role: "log", "aria-label": "Activity" });
  const pane = h("section", { class: "card", "aria-labelledby": "session-h" });

  // The opened session's controls.
  const title = h("h2", { id: "session-h", tabindex: "-1" }, "No conversation open");
  const state = h("p", { role: "status", class: "status" });
  const log = h("div", { class: "transcript", role: "log", "aria-live": "polite", "aria-label": "Transcript" });
  const take = h("button", { type: "button", class: "primary" }, "Take over");
  const end = h("button", { type: "button", class: "danger" }, "End live chat");
  const reply = h("textarea", { rows: "3", required: true });
  const send = h("button", { type: "submit", class: "primary" }, "Send reply");
  const replyForm = h("form", { class: "composer" }, field("Reply", reply), send);
  const paneNote = notice();
  const badges = h("span", { class: "actions" });
  let paneShown = false;
  const showPane = () => {
    if (paneShown) return;
    paneShown = true;
    clear(pane, title, badges, state, log, h("div", { class: "actions" }, take, end), replyForm, paneNote.element);
  };

  function drawList() {
    const items = [...sessions.values()].sort((a, b) => b.session.created_at.localeCompare(a.session.created_at));
    clear(list, ...items.map(sessionItem));
    if (!items.length) list.append(h("li", { class: "empty" }, "Nobody is waiting for a person."));
  }

  function sessionItem({ session, unread }) {
    const meta = session.meta ?? {};
    const waiting = meta.live_chat ? "live" : meta.human_requested ? "waiting" : "with the AI";
    const button = h(
      "button",
      { type: "button", "data-session": session.uuid, "aria-current": session.uuid === openUuid ? "true" : undefined },
      h("span", {}, `Visitor of ${formatDate(session.created_at)}`, h("span", { class: "sub" }, waiting)),
      unread ? h("span", { class: "unread", "aria-label": `${unread} new` }, String(unread)) : null,
    );
    button.addEventListener("click", () => open(session.uuid));
    return h("li", {}, button);
  }

  async function track(uuid) {
    const session = await get(`/session/${uuid}`, { signal: ctx.signal });
    const known = sessions.get(uuid);
    sessions.set(uuid, { session, unread: known?.unread ?? 0 });
    return session;
  }

  async function open(uuid) {
    openUuid = uuid;
    history.replaceState(null, "", `#/bot/${bot}/inbox/${uuid}`);
    showPane();
    if (!sessions.has(uuid)) await track(uuid);
    sessions.get(uuid).unread = 0;
    drawList();
    await refreshOpen();
    title.focus();
  }

  async function refreshOpen() {
    if (!openUuid) return;
    const uuid = openUuid;
    const [session, messages] = await Promise.all([
      track(uuid),
      get(`/session/${uuid}/messages`, { signal: ctx.signal }),
    ]);
    if (uuid !== openUuid) return;
    const live = Boolean(session.meta.live_chat);
    title.textContent = `Visitor of ${formatDate(session.created_at)}`;
    clear(log, ...transcript(messages));
    if (!messages.length) log.append(h("p", { class: "empty" }, "No messages yet."));
    log.scrollTop = log.scrollHeight;
    if (live) state.textContent = "You are chatting live: the AI is paused.";
    else if (session.meta.human_requested) state.textContent = "The visitor asked for a person.";
    else state.textContent = "The AI is answering this conversation.";
    take.hidden = live;
    end.hidden = !live;
    replyForm.hidden = !live;
    clear(badges, ...sessionBadges(session.meta));
    drawList();
  }

  take.addEventListener("click", () =>
    busy(take, paneNote, async () => {
      try {
        await post(`/session/${openUuid}/live-chat/start`);
        paneNote.ok("You took over: the visitor sees your replies.");
      } catch (error) {
        if (!(error instanceof ApiError && error.code === "live_chat_active")) throw error;
        paneNote.ok("This conversation is already live.");
      }
      await refreshOpen();
      reply.focus();
    }),
  );
  end.addEventListener("click", () =>
    busy(end, paneNote, async () => {
      await post(`/session/${openUuid}/live-chat/end`);
      paneNote.ok("Live chat ended: the AI answers again.");
      await refreshOpen();
    }),
  );
  replyForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = reply.value.trim();
    if (!text) return;
    busy(send, paneNote, async () => {
      await post(`/session/${openUuid}/live-chat/message`, { text });
      reply.value = "";
      paneNote.clear();
      await refreshOpen();
      reply.focus();
    });
  });
  reply.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      replyForm.requestSubmit();
    }
  });

  function logActivity(text, time) {
    activity.prepend(h("li", {}, `${time ? new Date(time).toLocaleTimeString() : ""} ${text}`.trim()));
    while (activity.children.length > 50) activity.lastChild.remove();
  }

  async function onEvent({ event, data, id }) {
    if (id) lastId = id;
    if (event === "ping" || !data?.session_uuid) return;
    const uuid = data.session_uuid;
    const describe = {
      [ChatbotEventKind.HUMAN_REQUESTED]: "A visitor asked for a person.",
      [ChatbotEventKind.USER_MESSAGE]: `Visitor: ${data.query ?? ""}`,
      [ChatbotEventKind.LIVE_CHAT_STARTED]: "An operator took a conversation over.",
      [ChatbotEventKind.OPERATOR_MESSAGE]: "An operator replied.",
      [ChatbotEventKind.LIVE_CHAT_ENDED]: "A live chat ended.",
    }[event];
    if (!describe) return;
    logActivity(describe, data.created_at);
    await track(uuid);
    if (uuid === openUuid) await refreshOpen();
    else {
      const unread = [ChatbotEventKind.USER_MESSAGE, ChatbotEventKind.HUMAN_REQUESTED].includes(event);
      if (unread) sessions.get(uuid).unread += 1;
      drawList();
    }
    if (event === ChatbotEventKind.HUMAN_REQUESTED) note.ok("A visitor is waiting for a person.");
  }

  async function connect() {
    const headers = lastId ? { "Last-Event-ID": lastId } : {};
    const response = await openStream("GET", `/chatbot/${bot}/events`, { headers, signal: ctx.signal });
    connection.dataset.state = "live";
    connection.textContent = "Live updates on.";
    return response;
  }

  async function follow(first) {
    let response = first;
    let failures = 0;
    while (!ctx.signal.aborted) {
      try {
        response ??= await connect();
        failures = 0;
        for await (const event of readEvents(response)) {
          await onEvent(event).catch((error) => error.name !== "AbortError" && note.error(error));
        }
      } catch (error) {
        if (ctx.signal.aborted || error.status === 401 || error.status === 404) return;
      }
      response = null;
      connection.dataset.state = "down";
      connection.textContent = "Live updates interrupted: reconnecting…";
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]));
    }
  }

  ctx.main.append(
    heading(`Inbox: ${ctx.chatbot.name}`),
    connection,
    note.element,
    h(
      "div",
      { class: "split" },
      h(
        "div",
        {},
        h("section", { class: "card", "aria-labelledby": "waiting-h" }, h("h2", { id: "waiting-h" }, "Waiting"), list),
        h(
          "section",
          { class: "card", "aria-labelledby": "activity-h" },
          h("h2", { id: "activity-h" }, "Activity"),
          activity,
        ),
      ),
      pane,
    ),
  );
  clear(pane, title, h("p", { class: "hint" }, "Open a conversation from the list."));

  // Connect first: the stream starts from "now", so nothing that happens after the list is read is missed.
  let first = null;
  try {
    first = await connect();
  } catch (error) {
    if (error.name === "AbortError") return undefined;
    connection.textContent = "Live updates unavailable: reconnecting…";
  }
  follow(first);
  try {
    const flagged = await get(`/chatbot/${bot}/sessions`, { query: { human_requested: 1 }, signal: ctx.signal });
    await Promise.all(flagged.map((item) => track(item.uuid)));
    if (openUuid && !sessions.has(openUuid)) await track(openUuid);
  } catch (error) {
    if (error.name === "AbortError") return undefined;
    note.error(error);
  }
  drawList();
  if (openUuid) await open(openUuid).catch((error) => error.name !== "AbortError" && paneNote.error(error));
  return undefined;
}
