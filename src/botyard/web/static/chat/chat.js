// The chat page, at /chat/{chatbot_uuid}: the share link, and what the widget frames. It talks to the public widget
// API only (the session uuid is the capability; no key exists here). The device id and the conversation's session
// are kept (in this page's localStorage, or when framed in the widget's host page's), so a reload (or the next
// visit) shows the same conversation.

import { citationMarkers, renderMarkdown, webUrl } from "../shared/markdown.js";
import { readEvents } from "../shared/sse.js";

const API = "/api/v1/widget";
const HEX = /^#[0-9a-f]{6}$/i;
const DEVICE_ID = /^[A-Za-z0-9_-]{8,64}$/;
const LABELS = { user: "You", assistant: "Answer", operator: "Operator", announcement: "Notice" };

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
const deviceId = device();
const sessionKey = `botyard:session:${config?.chatbot_uuid}`;
const shownOperatorMessages = new Set(); // the event stream may repeat a reply the messages list already had
let session = store.get(sessionKey);
let events = null;
let busy = true; // until the stored conversation is shown (Send starts disabled in the HTML)

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
  const title = config.title || config.name || "Chat";
  page.title.textContent = title;
  document.title = title;
  const root = document.documentElement.style;
  const primary = HEX.test(config.primary_color ?? "") ? config.primary_color : "#2563eb";
  root.setProperty("--primary", primary);
  root.setProperty("--on-primary", readableOn(primary));
  if (HEX.test(config.background_color ?? "")) root.setProperty("--background", config.background_color);
  if (HEX.test(config.text_color ?? "")) root.setProperty("--text", config.text_color);
  page.input.placeholder = config.placeholder || "Ask a question";
  if (config.welcome_message) {
    page.welcome.append(renderMarkdown(config.welcome_message, { imageHosts: config.image_hosts }));
    page.welcome.hidden = false;
  }
  for (const question of config.suggested_questions ?? []) {
    const button = element("button", page.suggestions, "suggestion");
    button.type = "button";
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
    fitInput();
    ask(text);
  });
  page.input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault(); // Shift+Enter keeps its newline
      page.form.requestSubmit();
    }
  });
  page.input.addEventListener("input", fitInput);
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
        page.log.scrollTop = page.log.scrollHeight;
      }
    } catch (error) {
      showNotice(error instanceof ChatError ? error.message : "The conversation could not be loaded.");
    }
  }
  updateSuggestions();
  setBusy(false); // ready: a question sent before now would have landed above the stored ones
}

function showStored(message) {
  if (message.role === "user") {
    addEntry("user").textContent = message.text;
  } else if (message.role === "announcement") {
    addEntry("announcement").textContent = message.text;
  } else if (message.role === "operator") {
    shownOperatorMessages.add(message.uuid);
    showAnswer(addEntry("operator"), message.text, new Map());
  } else if (message.role === "assistant" && message.text) {
    const entry = addEntry("assistant");
    entry.dataset.state = "done";
    showAnswer(entry, message.text, citationMap(message.citations));
  }
}

async function ask(text) {
  const query = text.trim();
  if (busy || !query) return;
  setBusy(true);
  showNotice("");
  page.input.focus(); // a clicked Send or suggestion button is disabled or hidden now; typing goes on here
  const question = addEntry("user");
  question.textContent = query;
  updateSuggestions();
  page.log.scrollTop = page.log.scrollHeight;
  let answer = null;
  try {
    const response = await postQuery(query);
    if (!response.ok) throw new ChatError(await errorText(response));
    answer = addEntry("assistant");
    answer.dataset.state = "streaming";
    answer.setAttribute("aria-busy", "true"); // screen readers hear the finished answer, not every word of it
    showAnswer(answer, "", new Map());
    await streamAnswer(response, answer);
  } catch (error) {
    const message = error instanceof ChatError ? error.message : "The connection failed. Please try again.";
    showNotice(message);
    if (!answer) {
      // Nothing was stored: the question goes back into the box, to be sent again later.
      question.remove();
      updateSuggestions();
      if (!page.input.value) {
        page.input.value = query;
        fitInput();
      }
    }
  } finally {
    if (answer) finishAnswer(answer);
    setBusy(false);
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
    body: JSON.stringify({ device_id: deviceId }),
  });
  if (!response.ok) throw new ChatError(await errorText(response));
  session = (await response.json()).session_uuid;
  store.set(sessionKey, session);
  listen();
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

/** Fills `entry` as the answer streams in; the Markdown is rendered again from the whole text at each delta. */
async function streamAnswer(response, entry) {
  let text = "";
  let ended = false;
  const citations = new Map();
  for await (const { event, data } of readEvents(response)) {
    if (event === "delta") {
      text += data.text;
    } else if (event === "citation") {
      citations.set(data.marker, citationOf(data));
    } else if (event === "end") {
      ended = true;
      for (const [marker, citation] of citationMap(data.citations)) citations.set(marker, citation);
    } else {
      if (event === "error") showNotice(data.error || "The answer could not be completed.");
      continue; // start and ping change nothing on screen
    }
    keepingScroll(() => showAnswer(entry, text, citations));
  }
  if (!ended) throw new ChatError("The answer was interrupted. Please try again.");
}

function finishAnswer(entry) {
  if (!entry.querySelector(".answer")?.hasChildNodes()) {
    entry.remove(); // no text: during a live chat the message went to the operator, who answers over `events`
    return;
  }
  entry.dataset.state = "done";
  entry.removeAttribute("aria-busy");
}

/** Renders `text` into `entry`, with a numbered source list when it cites sources. */
function showAnswer(entry, text, citations) {
  entry.replaceChildren();
  const body = element("div", entry, "answer");
  body.append(renderMarkdown(text, { imageHosts: config.image_hosts, citations }));
  const cited = citationMarkers(text)
    .map((marker, index) => ({ number: index + 1, citation: citations.get(marker) }))
    .filter((item) => item.citation);
  if (!cited.length) return;
  const list = element("ol", entry, "sources");
  list.setAttribute("aria-label", "Sources");
  for (const { number, citation } of cited) {
    const item = element("li", list);
    item.value = number;
    const url = webUrl(citation.url);
    const target = url ? element("a", item) : item;
    if (url) Object.assign(target, { href: url.href, target: "_blank", rel: "noopener noreferrer nofollow" });
    target.textContent = citation.title;
  }
}

/** `{marker: entry}` (the messages list's or the `end` event's) as the Map renderMarkdown takes. */
function citationMap(entries) {
  return new Map(Object.entries(entries ?? {}).map(([marker, entry]) => [marker, citationOf(entry)]));
}

/** Where a citation points: the stored `url`, else the source's reference link, else a web page's own address. */
function citationOf(entry) {
  const url = entry.url ?? entry.reference_source_link ?? (entry.type === "link" ? entry.file_name : null);
  return { url, title: entry.title || entry.file_name || "Source" };
}

/** Live chat: an operator's replies and the take-over/hand-back notices arrive over an EventSource. */
function listen() {
  if (events || !session) return;
  events = new EventSource(`${sessionPath()}/events`);
  const announce = (event) => keepingScroll(() => (addEntry("announcement").textContent = payload(event).text));
  events.addEventListener("live_chat_started", announce);
  events.addEventListener("live_chat_ended", announce);
  events.addEventListener("operator_message", (event) => {
    const { text, message_uuid: uuid } = payload(event);
    if (shownOperatorMessages.has(uuid)) return;
    shownOperatorMessages.add(uuid);
    keepingScroll(() => showAnswer(addEntry("operator"), text, new Map()));
  });
}

function payload(event) {
  try {
    return JSON.parse(event.data);
  } catch {
    return {};
  }
}

function addEntry(role) {
  const entry = element("article", page.log, `msg msg-${role}`);
  entry.setAttribute("aria-label", LABELS[role]);
  return entry;
}

/** Runs `change`, then keeps the log scrolled to the end if it was there (someone reading back is left alone). */
function keepingScroll(change) {
  const log = page.log;
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 48;
  change();
  if (atEnd) log.scrollTop = log.scrollHeight;
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

async function errorText(response) {
  try {
    const body = await response.json();
    if (typeof body?.error === "string" && body.error) return body.error;
  } catch {
    // not JSON: the status decides
  }
  if (response.status === 429) return "Too many messages. Please wait a moment.";
  if (response.status === 404 || response.status === 403) return "This chat is not available right now.";
  return "Something went wrong. Please try again.";
}

function embedded() {
  return config.embedded === true && window.parent !== window;
}

function closeFrame() {
  window.parent.postMessage({ type: "botyard:close" }, "*"); // carries nothing secret; the widget checks the source
}

function fitInput() {
  const input = page.input;
  input.style.height = "auto";
  input.style.height = `${input.scrollHeight + input.offsetHeight - input.clientHeight}px`;
}

function device() {
  let id = store.get("botyard:device");
  if (!DEVICE_ID.test(id ?? "")) {
    // getRandomValues, not randomUUID: the latter needs a secure context and self-hosters may serve plain http.
    id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
    store.set("botyard:device", id);
  }
  return id;
}

/** Framed by the widget: browsers block or partition a framed third party's storage, so the widget keeps the values
 * in its host page's storage. They arrive in this page's URL fragment; changes go back to the widget by message
 * (nothing else is ever posted, so a page framing this one learns only the session it saw created). */
function hostStorage() {
  const values = new Map(new URLSearchParams(location.hash.slice(1)));
  const post = (key, value) => window.parent.postMessage({ type: "botyard:store", key, value }, "*");
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => {
      values.set(key, value);
      post(key, value);
    },
    remove: (key) => {
      values.delete(key);
      post(key, null);
    },
  };
}

/** localStorage, or memory for this page's life where the browser refuses storage. */
function pageStorage() {
  const memory = new Map();
  const attempt = (action, fallback) => {
    try {
      return action();
    } catch {
      return fallback;
    }
  };
  return {
    get: (key) => attempt(() => localStorage.getItem(key), null) ?? memory.get(key) ?? null,
    set: (key, value) => {
      memory.set(key, value);
      attempt(() => localStorage.setItem(key, value));
    },
    remove: (key) => {
      memory.delete(key);
      attempt(() => localStorage.removeItem(key));
    },
  };
}

/** Black or white, whichever reads better on `hex` (WCAG relative luminance; widget.js has the same rule). */
function readableOn(hex) {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 ? "#000000" : "#ffffff";
}

function element(tag, parent, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  parent.append(node);
  return node;
}
