// The chat page, at /chat/{chatbot_uuid}: the share link, and what the widget frames. It talks to the public widget
// API only (the session uuid is the capability; no key exists here). The device id and the conversation's session
// are kept (in this page's localStorage, or when framed in the widget's host page's), so a reload (or the next
// visit) shows the same conversation.

import { citationOf } from "../shared/citations.js";
import { renderMarkdown } from "../shared/markdown.js";
import { ChatbotEventKind, WidgetRole } from "../shared/names.js";
import { readEvents } from "../shared/sse.js";
import { offerContact } from "./contact.js";
import { addFeedback, feedbackSender } from "./feedback.js";
import {
  citationMap,
  element,
  errorText,
  finishAnswer,
  fitInput,
  keepingScroll,
  payload,
  readableOn,
  showAnswer,
} from "./render.js";
import { deviceIdIn, hostStorage, pageStorage } from "./storage.js";
import { useWords, word } from "./words.js";

const API = "/api/v1/widget";
const HEX = /^#[0-9a-f]{6}$/i;
const LABELS = { user: "you", assistant: "answer", operator: "operator", announcement: "notice" }; // words.js names

const page = {
  title: document.querySelector("h1"),
  close: document.querySelector(".close"),
  log: document.querySelector(".log"),
  welcome: document.querySelector(".welcome"),
  suggestions: document.querySelector(".suggestions"),
  notice: document.querySelector(".notice"),
  form: document.querySelector(".composer"),
  input: document.querySelector(".composer textarea"),
  send: document.querySelector(".composer button"),
};

/** A failure with a message meant for the person chatting. */
class ChatError extends Error {}

const config = readConfig();
const store = config && embedded() ? hostStorage() : pageStorage();
const deviceId = deviceIdIn(store);
const sessionKey = `botyard:session:${config?.chatbot_uuid}`;
const shownOperatorMessages = new Set(); // the event stream may repeat a reply the messages list already had
let session = store.get(sessionKey);
let events = null;
let busy = true; // until the stored conversation is shown (Send starts disabled in the HTML)
const rating = { send: feedbackSender(sessionPath, deviceId), notify: showNotice }; // addFeedback's

if (config) {
  applySettings();
  bindControls();
  restore();
} else {
  showNotice("This chat is not available.");
}

function readConfig() {
  try {
    const config = JSON.parse(document.getElementById("botyard-config").textContent);
    return typeof config?.chatbot_uuid === "string" ? config : null;
  } catch {
    return null;
  }
}

function applySettings() {
  useWords(config.texts);
  // The page speaks the chatbot's language; right-to-left mirrors the whole frame. Each message and the message box
  // still take their own text's direction (dir="auto"): an English question in an Arabic chat stays left-to-right.
  document.documentElement.lang = typeof config.language === "string" ? config.language : "en";
  document.documentElement.dir = config.direction === "rtl" ? "rtl" : "ltr";
  page.send.textContent = word("send");
  page.input.setAttribute("aria-label", word("message"));
  page.close.setAttribute("aria-label", word("close_chat"));
  page.log.setAttribute("aria-label", word("conversation"));
  page.suggestions.setAttribute("aria-label", word("suggestions"));
  const title = config.title || config.name || "Chat";
  page.title.textContent = title;
  document.title = title;
  const root = document.documentElement.style;
  const primary = HEX.test(config.primary_color ?? "") ? config.primary_color : "#2563eb";
  root.setProperty("--primary", primary);
  root.setProperty("--on-primary", readableOn(primary));
  if (HEX.test(config.background_color ?? "")) root.setProperty("--background", config.background_color);
  if (HEX.test(config.text_color ?? "")) root.setProperty("--text", config.text_color);
  page.input.placeholder = config.placeholder || word("placeholder");
  if (config.welcome_message) {
    page.welcome.append(renderMarkdown(config.welcome_message, { imageHosts: config.image_hosts }));
    page.welcome.hidden = false;
  }
  for (const question of config.suggested_questions ?? []) {
    const button = element("button", page.suggestions, "suggestion");
    button.type = "button";
    button.dir = "auto";
    button.textContent = question;
    button.addEventListener("click", () => ask(question));
  }
  page.close.hidden = !embedded();
}

function bindControls() {
  page.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = page.input.value;
    if (busy || !text.trim()) return;
    page.input.value = "";
    fitInput(page.input);
    ask(text);
  });
  page.input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault(); // Shift+Enter keeps its newline
      page.form.requestSubmit();
    }
  });
  page.input.addEventListener("input", () => fitInput(page.input));
  if (embedded()) {
    page.close.addEventListener("click", closeFrame);
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") closeFrame();
    });
  }
  // The widget focuses this frame when it opens; the message box is where the person wants to be.
  window.addEventListener("focus", () => {
    if (document.activeElement === document.body) page.input.focus();
  });
  if (document.hasFocus()) page.input.focus();
}

/** Shows the stored conversation of the remembered session (a session that is gone is forgotten). */
async function restore() {
  if (session) {
    try {
      const response = await fetch(`${sessionPath()}/messages`);
      if (response.status === 404) forgetSession();
      else if (!response.ok) throw new ChatError(await errorText(response));
      else {
        for (const message of await response.json()) showStored(message);
        listen();
        offerContact(page.log, sessionPath()); // a form left open before the reload
        page.log.scrollTop = page.log.scrollHeight;
      }
    } catch (error) {
      showNotice(error instanceof ChatError ? error.message : word("load_failed"));
    }
  }
  updateSuggestions();
  setBusy(false); // ready: a question sent before now would have landed above the stored ones
}

function showStored(message) {
  if (message.role === WidgetRole.USER) {
    addEntry(WidgetRole.USER).textContent = message.text;
  } else if (message.role === WidgetRole.ANNOUNCEMENT) {
    addEntry(WidgetRole.ANNOUNCEMENT).textContent = message.text;
  } else if (message.role === WidgetRole.OPERATOR) {
    shownOperatorMessages.add(message.uuid);
    showOperatorMessage(message.text, message.operator_name);
  } else if (message.role === WidgetRole.ASSISTANT && message.text) {
    const entry = addEntry(WidgetRole.ASSISTANT);
    entry.dataset.state = "done";
    showAnswer(entry, message.text, citationMap(message.citations), config.image_hosts);
    if (message.uuid) addFeedback(entry, message.uuid, message.feedback, rating); // thumbs up or down, a comment
  }
}

async function ask(text) {
  const query = text.trim();
  if (busy || !query) return;
  setBusy(true);
  showNotice("");
  page.input.focus(); // a clicked Send or suggestion button is disabled or hidden now; typing goes on here
  const question = addEntry(WidgetRole.USER);
  question.textContent = query;
  updateSuggestions();
  page.log.scrollTop = page.log.scrollHeight;
  let answer = null;
  let answered = null; // the stored answer's message uuid, once the stream has ended
  try {
    const response = await postQuery(query);
    if (!response.ok) throw new ChatError(await errorText(response));
    // Everything the answer adds to the log (its empty bubble here, its text, its feedback bar) stays at the end in
    // view: the person just asked and reads on at the bottom, wherever the log has grown to.
    answer = keepingScroll(page.log, () => addEntry(WidgetRole.ASSISTANT));
    answer.dataset.state = "streaming";
    answer.setAttribute("aria-busy", "true"); // screen readers hear the finished answer, not every word of it
    keepingScroll(page.log, () => showAnswer(answer, "", new Map(), config.image_hosts));
    answered = await streamAnswer(response, answer);
  } catch (error) {
    const message = error instanceof ChatError ? error.message : word("connection_failed");
    showNotice(message);
    if (!answer) {
      // Nothing was stored: the question goes back into the box, to be sent again later.
      question.remove();
      updateSuggestions();
      if (!page.input.value) {
        page.input.value = query;
        fitInput(page.input);
      }
    }
  } finally {
    keepingScroll(page.log, () => {
      if (answer) finishAnswer(answer);
      if (answer?.isConnected && answered) addFeedback(answer, answered, null, rating);
    });
    setBusy(false);
    if (answered) offerContact(page.log, sessionPath()); // after hours, a hand-off offers a form
  }
}

async function postQuery(query) {
  if (session) {
    const response = await requestAnswer(query);
    if (response.status !== 404) return response;
    forgetSession(); // deleted since: the conversation goes on in a new session
  }
  await startSession();
  return requestAnswer(query);
}

function requestAnswer(query) {
  return fetch(`${sessionPath()}/message/stream`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({ query, device_id: deviceId }),
  });
}

async function startSession() {
  const response = await fetch(`${API}/${encodeURIComponent(config.chatbot_uuid)}/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ device_id: deviceId, ...visitorGiven() }),
  });
  if (!response.ok) throw new ChatError(await errorText(response));
  session = (await response.json()).session_uuid;
  store.set(sessionKey, session);
  listen();
}

/** What the widget's host page told of the visitor (their name, email and attributes, the page they are on), sent
 * when the conversation begins; nothing on the share page. */
function visitorGiven() {
  const given = {};
  for (const key of ["name", "email", "page"]) {
    const value = store.get(`botyard:${key}`);
    if (value) given[key] = value;
  }
  try {
    const attributes = JSON.parse(store.get("botyard:attributes") || "null");
    if (attributes && typeof attributes === "object" && !Array.isArray(attributes)) {
      given.attributes = Object.fromEntries(
        Object.entries(attributes)
          .filter(([key]) => key.trim())
          .slice(0, 30)
          .map(([key, value]) => [key.trim().slice(0, 64), String(value).slice(0, 500)]),
      );
    }
  } catch {
    // attributes that are not JSON are left out: the conversation begins without them
  }
  return given;
}

function sessionPath() {
  return `${API}/session/${encodeURIComponent(session)}`;
}

function forgetSession() {
  store.remove(sessionKey);
  session = null;
  events?.close();
  events = null;
}

/** Fills `entry` as the answer streams in; the Markdown is rendered again from the whole text at each delta.
 * Resolves to the stored message's uuid (from the `end` event). */
async function streamAnswer(response, entry) {
  let text = "";
  let ended = false;
  let messageUuid = null;
  const citations = new Map();
  for await (const { event, data } of readEvents(response)) {
    if (event === "delta") {
      text += data.text;
    } else if (event === "citation") {
      citations.set(data.marker, citationOf(data));
    } else if (event === "end") {
      ended = true;
      messageUuid = typeof data.message_uuid === "string" ? data.message_uuid : null;
      for (const [marker, citation] of citationMap(data.citations)) citations.set(marker, citation);
    } else {
      if (event === "error") showNotice(data.error || word("incomplete"));
      continue; // start and ping change nothing on screen
    }
    keepingScroll(page.log, () => showAnswer(entry, text, citations, config.image_hosts));
  }
  if (!ended) throw new ChatError(word("interrupted"));
  return messageUuid;
}


/** Live chat: an operator's replies and the take-over/hand-back notices arrive over an EventSource. */
function listen() {
  if (events || !session) return;
  events = new EventSource(`${sessionPath()}/events`);
  const announce = (event) =>
    keepingScroll(page.log, () => (addEntry(WidgetRole.ANNOUNCEMENT).textContent = payload(event).text));
  events.addEventListener(ChatbotEventKind.LIVE_CHAT_STARTED, announce);
  events.addEventListener(ChatbotEventKind.LIVE_CHAT_ENDED, announce);
  events.addEventListener(ChatbotEventKind.OPERATOR_MESSAGE, (event) => {
    const { text, message_uuid: uuid, operator_name: name } = payload(event);
    if (shownOperatorMessages.has(uuid)) return;
    shownOperatorMessages.add(uuid);
    keepingScroll(page.log, () => showOperatorMessage(text, name));
  });
}

/** An operator's reply, signed with their name when a person (not a program with the key) wrote it. */
function showOperatorMessage(text, name) {
  const entry = addEntry(WidgetRole.OPERATOR);
  showAnswer(entry, text, new Map(), config.image_hosts);
  if (typeof name !== "string" || !name) return;
  const by = document.createElement("p");
  by.className = "by";
  by.textContent = name;
  entry.prepend(by);
  entry.setAttribute("aria-label", `${word(LABELS[WidgetRole.OPERATOR])}: ${name}`);
}

function addEntry(role) {
  const entry = element("article", page.log, `msg msg-${role}`);
  entry.setAttribute("aria-label", word(LABELS[role]));
  entry.dir = "auto"; // Arabic, Hebrew, Persian or Urdu text reads right to left, whatever the chat's language
  return entry;
}

function updateSuggestions() {
  page.suggestions.hidden = !page.suggestions.hasChildNodes() || page.log.querySelector(".msg-user") !== null;
}

function setBusy(value) {
  busy = value;
  page.send.disabled = value;
  for (const button of page.suggestions.children) button.disabled = value;
}

function showNotice(text) {
  page.notice.textContent = text;
}

function embedded() {
  return config.embedded === true && window.parent !== window;
}

function closeFrame() {
  window.parent.postMessage({ type: "botyard:close" }, "*"); // carries nothing secret; the widget checks the source
}
