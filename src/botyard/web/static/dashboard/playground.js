// Playground: chat with the chatbot as a user would (owner API, streamed as SSE), with Markdown, citations and the
// agent that answered.
import { readEvents } from "/static/shared/sse.js";
import { get, openStream, post } from "./api.js";
import { agentLine, answerContent } from "./transcript.js";
import { clear, field, h, heading, notice } from "./ui.js";

export function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  let session = null;
  let streaming = null; // AbortController of the answer being streamed

  const log = h("div", { class: "transcript card", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
  const message = h("textarea", { rows: "2", required: true, placeholder: "Ask a question", dir: "auto" });
  const send = h("button", { type: "submit", class: "primary" }, "Send");
  const stop = h("button", { type: "button", hidden: true }, "Stop");
  const composer = h("form", { class: "composer", "data-needs": "chat" }, field("Message", message), send, stop);
  const restart = h("button", { type: "button" }, "New conversation");
  const sessionLine = h("p", { class: "hint" });

  function reset() {
    streaming?.abort();
    session = null;
    clear(log, h("p", { class: "empty" }, "Ask something to start a conversation."));
    sessionLine.textContent = "";
    note.clear();
  }

  async function ask(query) {
    if (!session) {
      session = (await post(`/chatbot/${bot}/session/create`, {}, { signal: ctx.signal })).uuid;
      sessionLine.textContent = `Session ${session}`;
      log.querySelector(".empty")?.remove();
    }
    const who = (text) => h("span", { class: "who" }, text);
    log.append(h("article", { class: "msg msg-user" }, who("You"), h("p", { class: "plain", dir: "auto" }, query)));
    const answer = h("article", { class: "msg msg-assistant", "data-state": "streaming", "aria-busy": "true" });
    answer.append(who("Assistant"));
    const content = h("div");
    answer.append(content);
    log.append(answer);

    let text = "";
    let cites = {};
    let messageUuid = null;
    const draw = () => clear(content, ...answerContent(text, cites));
    const controller = new AbortController();
    streaming = controller;
    const abortWithPage = () => controller.abort();
    ctx.signal.addEventListener("abort", abortWithPage);
    try {
      const path = `/session/${session}/message/stream`;
      const response = await openStream("POST", path, { body: { query }, signal: controller.signal });
      for await (const { event, data } of readEvents(response)) {
        if (event === "delta") text += data.text ?? "";
        else if (event === "citation") cites = { ...cites, [data.marker]: data };
        else if (event === "error") note.error(data.error ?? "The answer failed.");
        else if (event === "end") {
          messageUuid = data.message_uuid;
          if (data.citations) cites = data.citations;
        } else continue;
        draw();
        log.scrollTop = log.scrollHeight;
      }
    } finally {
      ctx.signal.removeEventListener("abort", abortWithPage);
      streaming = null;
      answer.dataset.state = "done";
      answer.removeAttribute("aria-busy");
      if (!text) clear(content, h("p", { class: "empty" }, controller.signal.aborted ? "Stopped." : "(no answer)"));
    }
    if (messageUuid) {
      const messages = await get(`/session/${session}/messages`, { signal: ctx.signal });
      const stored = messages.find((item) => item.uuid === messageUuid);
      if (stored) answer.append(agentLine(JSON.parse(stored.meta_json || "{}")) ?? "");
    }
  }

  composer.addEventListener("submit", async (event) => {
    event.preventDefault();
    const query = message.value.trim();
    if (!query || streaming) return;
    message.value = "";
    send.disabled = true;
    stop.hidden = false;
    note.clear();
    try {
      await ask(query);
    } catch (error) {
      if (error.name !== "AbortError") note.error(error);
    } finally {
      send.disabled = false;
      stop.hidden = true;
      if (!ctx.signal.aborted) message.focus();
    }
  });
  message.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });
  stop.addEventListener("click", () => streaming?.abort());
  restart.addEventListener("click", reset);

  ctx.main.append(
    heading(`Playground: ${ctx.chatbot.name}`),
    h("p", { class: "lead" }, "Chat as your users would; these conversations are listed under Conversations."),
    h("div", { class: "actions" }, restart, sessionLine),
    log,
    composer,
    note.element,
  );
  reset();
  return () => streaming?.abort();
}
