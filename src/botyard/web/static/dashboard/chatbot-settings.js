// One chatbot, in sections with their own address (#/chatbot/<uuid>/<section>): its settings, the embed line and
// share link, its widget's look and allowed sites, the hand-off, channels, webhooks, and delete. A role that may not
// manage the chatbot sees the settings read-only, with the reason, and no delete.
import { Permission, Visibility } from "/static/shared/names.js";
import { get, post, request } from "./api.js";
import {
  append,
  busy,
  checkbox,
  clear,
  confirmDialog,
  field,
  h,
  heading,
  lines,
  lockedUnless,
  notice,
  readOnlyNote,
  select,
} from "./ui.js";
import { handoffSection } from "./handoff-settings.js";
import { tabbed } from "./tabs.js";
import { webhooksSection } from "./webhooks.js";

const VISIBILITY = [
  [Visibility.PRIVATE, "Private: only with your API key"],
  [Visibility.PUBLIC, "Public: widget and share link"],
  [Visibility.HYBRID, "Hybrid: widget only (no share page)"],
];

const STRICTNESS = [
  ["loose", "Loose: answer from anything related"],
  ["balanced", "Balanced (default)"],
  ["strict", "Strict: only what the knowledge clearly covers"],
];

// The languages a chatbot may speak (botyard.i18n.Language), each by its English name and its own.
const LANGUAGES = [
  ["en", "English"],
  ["de", "German (Deutsch)"],
  ["fr", "French (Français)"],
  ["es", "Spanish (Español)"],
  ["it", "Italian (Italiano)"],
  ["pt", "Portuguese (Português)"],
  ["nl", "Dutch (Nederlands)"],
  ["zh", "Chinese (中文)"],
  ["ja", "Japanese (日本語)"],
  ["ko", "Korean (한국어)"],
  ["ar", "Arabic (العربية)"],
  ["ru", "Russian (Русский)"],
  ["tr", "Turkish (Türkçe)"],
  ["pl", "Polish (Polski)"],
  ["th", "Thai (ไทย)"],
  ["hi", "Hindi (हिन्दी)"],
  ["he", "Hebrew (עברית)"],
  ["fa", "Persian (فارسی)"],
  ["ur", "Urdu (اردو)"],
];

function languageOptions(answering) {
  const name = (code) => LANGUAGES.find(([value]) => value === code)?.[1] ?? code;
  const found = answering.language_source === "knowledge";
  const automatic = found
    ? `Automatic: the knowledge's language (now ${name(answering.effective_language)})`
    : "Automatic: the knowledge's language (none found yet: English)";
  return [["", automatic], ...LANGUAGES];
}

export async function render(ctx) {
  const bot = await get(`/chatbot/${ctx.chatbot.uuid}`, { signal: ctx.signal });
  bot.answering = await get(`/chatbot/${ctx.chatbot.uuid}/answer-settings`, { signal: ctx.signal });
  const title = heading(`Chatbot: ${bot.name}`);
  const embed = h("section", { "aria-labelledby": "embed-h" });
  const manages = ctx.can(Permission.MANAGE);
  const locked = (element) => lockedUnless(manages, element);
  const sections = [
    { key: "settings", label: "Settings", element: locked(settingsForm(ctx, bot, saved)) },
    { key: "embed", label: "Embed", element: embed },
    { key: "widget", label: "Widget", element: locked(await widgetForm(ctx)) },
    { key: "handoff", label: "Hand-off", element: locked(handoffSection(ctx)) },
    { key: "channels", label: "Channels", element: channelsLink(ctx) },
    { key: "webhooks", label: "Webhooks", element: locked(await webhooksSection(ctx)) },
  ];
  if (manages) sections.push({ key: "danger", label: "Danger zone", element: dangerZone(ctx, bot) });
  const tabs = tabbed(`#/chatbot/${bot.uuid}`, sections, "Chatbot sections");
  const reason = manages ? null : readOnlyNote(ctx.me, "settings", "an admin or the owner of the account");
  append(ctx.main, [title, reason, tabs.nav, ...tabs.panels]);
  drawEmbed(embed, bot);
  tabs.show(ctx.params[1]);
  ctx.onRoute((params) => tabs.show(params[1]));

  function saved(changed) {
    title.textContent = `Chatbot: ${changed.name}`;
    drawEmbed(embed, changed);
  }
}

function settingsForm(ctx, bot, onSaved) {
  const note = notice();
  const [count, seconds] = bot.meta.rate_limit ?? [20, 240];
  const name = h("input", { type: "text", value: bot.name, required: true, maxlength: "200" });
  const messages = h("input", { type: "number", min: 1, max: 100, step: 1, value: count, required: true });
  const per = h("input", { type: "number", min: 1, max: 360, step: 1, value: seconds, required: true });
  const limitMessage = h("textarea", { rows: "2", maxlength: "2000" });
  limitMessage.value = bot.meta.rate_limit_message ?? "";
  const citations = checkbox("Show citations in answers", Boolean(bot.meta.show_citations));
  const visibility = select(VISIBILITY, bot.meta.visibility);
  const strictness = select(STRICTNESS, bot.answering.strictness);
  const language = select(languageOptions(bot.answering), bot.answering.language ?? "");
  const save = h("button", { type: "submit", "data-needs": "manage", class: "primary" }, "Save settings");
  const form = h(
    "form",
    { class: "card" },
    field("Name", name),
    h(
      "fieldset",
      {},
      h("legend", {}, "Rate limit (per conversation)"),
      h("div", { class: "row" }, field("Messages", messages), field("Per seconds", per)),
    ),
    field("Rate limit message", limitMessage, "Shown to a user who sends messages too fast."),
    citations.element,
    field("Visibility", visibility),
    field(
      "Answer strictness",
      strictness,
      "How much evidence a question needs in the knowledge before the offline answerer answers it " +
        "(hit testing shows the score). With a language model, the agent's prompt decides.",
    ),
    field(
      "Language",
      language,
      "The language of the no-answer reply (a question clearly in another language gets it in its own) and of " +
        "the widget's buttons and notices.",
    ),
    save,
    note.element,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(save, note, async () => {
      const saved = await post(`/chatbot/${bot.uuid}/update`, {
        name: name.value.trim(),
        rate_limit: [Number(messages.value), Number(per.value)],
        rate_limit_message: limitMessage.value,
        show_citations: citations.input.checked,
        visibility: visibility.value,
      });
      await post(`/chatbot/${bot.uuid}/answer-settings`, {
        strictness: strictness.value,
        language: language.value || null,
      });
      note.ok("Settings saved.");
      await ctx.refreshChatbots();
      onSaved(saved);
    });
  });
  return h("section", { "aria-labelledby": "settings-h" }, h("h2", { id: "settings-h" }, "Settings"), form);
}

function drawEmbed(section, bot) {
  const note = notice();
  const line = `<script src="${location.origin}/widget.js" data-chatbot="${bot.uuid}" async></script>`;
  const code = h("textarea", { rows: "2", readonly: true, class: "code", spellcheck: "false" });
  code.value = line;
  const copy = h("button", { type: "button" }, "Copy embed code");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(line);
      note.ok("Embed code copied to the clipboard.");
    } catch {
      code.focus();
      code.select();
      note.ok("Copying is not allowed here: the code is selected, press Ctrl+C (⌘C) to copy it.");
    }
  });
  const share = `${location.origin}/chat/${bot.uuid}`;
  const visibility = bot.meta.visibility;
  const shareLine =
    visibility === Visibility.PUBLIC
      ? h("p", {}, "Share link: ", h("a", { href: share, target: "_blank", rel: "noopener" }, share))
      : h(
          "p",
          { class: "hint" },
          visibility === Visibility.HYBRID
            ? "Hybrid chatbots have no share page: only the widget can open them."
            : "Private chatbots answer only with your API key: make it public or hybrid to embed or share it.",
        );
  clear(
    section,
    h("h2", { id: "embed-h" }, "Embed and share"),
    h(
      "div",
      { class: "card" },
      h("p", {}, "Paste this line into your website's HTML, before </body>:"),
      field("Embed code", code),
      copy,
      note.element,
      shareLine,
    ),
  );
}

async function widgetForm(ctx) {
  const section = h("section", { "aria-labelledby": "widget-h" }, h("h2", { id: "widget-h" }, "Widget"));
  const note = notice();
  let widget;
  try {
    widget = await get(`/chatbot/${ctx.chatbot.uuid}/widget`, { signal: ctx.signal });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    note.error(`The widget settings could not be loaded: ${error.message}`);
    section.append(note.element);
    return section;
  }
  const text = (value, props = {}) => h("input", { type: "text", value: value ?? "", ...props });
  const area = (items) => {
    const element = h("textarea", { rows: "3" });
    element.value = (items ?? []).join("\n");
    return element;
  };
  const color = (value) => h("input", { type: "color", value: value || "#000000" });
  const inputs = {
    title: text(widget.title, { placeholder: ctx.chatbot.name }),
    primary_color: color(widget.primary_color),
    background_color: color(widget.background_color),
    text_color: color(widget.text_color),
    welcome_message: h("textarea", { rows: "2" }),
    placeholder: text(widget.placeholder),
    suggested_questions: area(widget.suggested_questions),
    allowed_origins: area(widget.allowed_origins),
    image_hosts: area(widget.image_hosts),
  };
  inputs.welcome_message.value = widget.welcome_message ?? "";
  const save = h("button", { type: "submit", "data-needs": "manage", class: "primary" }, "Save widget");
  const form = h(
    "form",
    { class: "card" },
    field("Title", inputs.title, "Empty: the chatbot's name."),
    h(
      "div",
      { class: "row" },
      field("Primary colour", inputs.primary_color),
      field("Background colour", inputs.background_color),
      field("Text colour", inputs.text_color),
    ),
    field("Welcome message", inputs.welcome_message),
    field("Input placeholder", inputs.placeholder),
    field("Suggested questions", inputs.suggested_questions, "One per line, at most 6."),
    field(
      "Allowed websites",
      inputs.allowed_origins,
      "One origin per line (https://www.example.com). Empty: any site may embed the widget.",
    ),
    field("Image hosts", inputs.image_hosts, "Hosts whose images answers may show (docs.example.com), one per line."),
    save,
    note.element,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const questions = lines(inputs.suggested_questions.value);
    if (questions.length > 6) return note.error("At most 6 suggested questions.");
    await busy(save, note, async () => {
      await post(`/chatbot/${ctx.chatbot.uuid}/widget`, {
        title: inputs.title.value.trim(),
        primary_color: inputs.primary_color.value,
        background_color: inputs.background_color.value,
        text_color: inputs.text_color.value,
        welcome_message: inputs.welcome_message.value,
        placeholder: inputs.placeholder.value,
        suggested_questions: questions,
        allowed_origins: lines(inputs.allowed_origins.value),
        image_hosts: lines(inputs.image_hosts.value),
      });
      note.ok("Widget saved.");
    });
  });
  section.append(form);
  return section;
}

function channelsLink(ctx) {
  return h(
    "section",
    { "aria-labelledby": "channels-h" },
    h("h2", { id: "channels-h" }, "Channels"),
    h(
      "div",
      { class: "card" },
      h("p", {}, "Besides the widget, this chatbot can answer on Telegram, in Slack, or in your own system."),
      h("a", { class: "button", href: `#/bot/${ctx.chatbot.uuid}/channels` }, "Open the Channels page"),
    ),
  );
}

function dangerZone(ctx, bot) {
  const note = notice();
  const remove = h("button", { type: "button", class: "danger" }, "Delete chatbot");
  remove.addEventListener("click", async () => {
    if (!(await confirmDialog(`Delete the chatbot “${bot.name}” with all its knowledge and conversations?`))) return;
    await busy(remove, note, async () => {
      await request("DELETE", `/chatbot/${bot.uuid}/delete`);
      sessionStorage.removeItem("botyard.chatbot");
      await ctx.refreshChatbots();
      ctx.go("#/chatbots");
    });
  });
  return h(
    "section",
    { "aria-labelledby": "danger-h" },
    h("h2", { id: "danger-h" }, "Danger zone"),
    h(
      "div",
      { class: "card" },
      h("p", {}, "Deleting removes the chatbot, its knowledge and its conversations."),
      remove,
      note.element,
    ),
  );
}
