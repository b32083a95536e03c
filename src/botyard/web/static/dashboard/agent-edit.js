// One agent's settings: the common ones, those of its type, its variables, and (user-facing and background agents)
// its tool functions.
import { AgentType, Permission } from "/static/shared/names.js";
import { get, post } from "./api.js";
import { functionsSection } from "./functions.js";
import { llmOnly, serviceInfo } from "./service.js";
import {
  append,
  badge,
  busy,
  checkbox,
  field,
  h,
  heading,
  jsonField,
  lines,
  lockedUnless,
  notice,
  readOnlyNote,
  select,
} from "./ui.js";

const ROUTED = [AgentType.USER_FACING, AgentType.HUMAN_ESCALATION, AgentType.PRE_CANNED, AgentType.SPAM_DEFENSE];
const ESCALATION_TEXTS = [
  ["human_requested_message", "Reply when a person is asked for"],
  ["live_chat_start_announcement", "Announcement when an operator takes over"],
  ["live_chat_end_announcement", "Announcement when the live chat ends"],
];

// Any step: a value set through the API (0.25) must not make the form impossible to submit.
const number = (value, min, max) => h("input", { type: "number", min, max, step: "any", value: value ?? 0 });

/** The failure of a save the browser refused (a value out of range): named, in place of any earlier success. */
function reportInvalid(form, note) {
  let reported = false;
  form.querySelector("[type=submit]").addEventListener("click", () => {
    reported = false;
    note.clear();
  });
  form.addEventListener(
    "invalid",
    (event) => {
      if (reported) return;
      reported = true;
      const label = form.querySelector(`label[for="${event.target.id}"]`)?.textContent ?? "A field";
      note.error(`Not saved: ${label}: ${event.target.validationMessage}`);
    },
    true,
  );
}

export async function render(ctx) {
  const [, agentUuid] = ctx.params;
  const [agent, models, sources, service] = await Promise.all([
    get(`/agent/${agentUuid}`, { signal: ctx.signal }),
    get("/agent/models", { signal: ctx.signal }),
    get(`/chatbot/${ctx.chatbot.uuid}/data-sources`, { signal: ctx.signal }),
    serviceInfo().catch(() => null), // unknown: no hint rather than no editor
  ]);
  const offline = service?.answerer === "offline";
  const type = agent.type;
  const note = notice();
  const title = heading(`Agent: ${agent.name}`);
  const common = commonSection(agent, models.models, offline);
  const sections = SECTIONS.filter(([applies]) => applies(type)).map(([, section]) => section(agent, sources));
  const specific = sections.flatMap((section) => section.elements);
  const variables = jsonField(
    "Variables (JSON)",
    agent.variables ?? [],
    'A list of {"name", "description", "type": "string"|"number"|"boolean", "example", ' +
      '"default_value": {"content", "static": 0|1}}.',
  );

  const save = h("button", { type: "submit", "data-needs": "knowledge", class: "primary" }, "Save agent");
  const form = h(
    "form",
    { class: "card" },
    ...common.elements,
    specific.length ? h("fieldset", {}, h("legend", {}, `${type} settings`), ...specific) : null,
    variables.element,
    save,
    note.element,
  );
  reportInvalid(form, note);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    note.clear();
    busy(save, note, async () => {
      const body = { variables: variables.read([]) };
      for (const section of [common, ...sections]) section.read(body);
      const saved = await post(`/agent/${agent.uuid}/update`, body);
      title.textContent = `Agent: ${saved.name}`;
      note.ok("Agent saved.");
    });
  });

  const edits = ctx.can(Permission.KNOWLEDGE);
  const tools = [AgentType.USER_FACING, AgentType.BACKGROUND].includes(type);
  append(ctx.main, [
    h("p", {}, h("a", { href: `#/bot/${ctx.chatbot.uuid}/agents` }, "← All agents")),
    title,
    h("p", {}, badge(type)),
    edits ? null : readOnlyNote(ctx.me, "agents", "an editor, an admin or the owner of the account"),
    lockedUnless(edits, form),
    tools ? lockedUnless(edits, functionsSection(ctx, agent, offline)) : null,
  ]);
}

// A section of the form: `elements` to show and `read(body)`, which adds their values to the update body.

function commonSection(agent, modelNames, offline) {
  const meta = agent.meta ?? {};
  const name = h("input", { type: "text", value: agent.name, required: true, maxlength: "200" });
  const description = h("textarea", { rows: "2" });
  description.value = agent.description ?? "";
  const prompt = h("textarea", { rows: "8", class: "code" });
  prompt.value = agent.prompt ?? "";
  const model = select(modelNames.includes(meta.model) ? modelNames : [meta.model, ...modelNames], meta.model);
  const temperature = number(meta.temperature, 0, 1, 0.1);
  const enabled = checkbox("Enabled", Boolean(agent.enabled));
  const forModel = [
    field("Prompt", prompt, "Instructions for the model; {{variable}} inserts a variable's value."),
    h("div", { class: "row" }, field("Model", model), field("Temperature", temperature, "0 to 1.")),
  ];
  const elements = [
    field("Name", name),
    field("Description", description, "Routing compares questions with the name and description."),
    offline ? llmOnly(h("div", { class: "model-settings" }, ...forModel)) : forModel,
    enabled.element,
  ];
  const read = (body) =>
    Object.assign(body, {
      name: name.value.trim(),
      description: description.value,
      prompt: prompt.value,
      model: model.value,
      temperature: Number(temperature.value),
      enabled: enabled.input.checked,
    });
  return { elements, read };
}

function routingSection(agent) {
  const meta = agent.meta ?? {};
  const bias = number(meta.bias, -1, 1);
  const stickness = number(meta.stickness, 0, 1);
  const row = h(
    "div",
    { class: "row" },
    field("Bias", bias, "-1 to 1: favours this agent in routing."),
    field("Stickiness", stickness, "0 to 1: keeps a conversation with the agent that answered last."),
  );
  return {
    elements: [row],
    read: (body) => Object.assign(body, { bias: Number(bias.value), stickness: Number(stickness.value) }),
  };
}

function sourcesSection(agent, sources) {
  const all = checkbox("Answer from all the chatbot's sources", (agent.meta ?? {}).use_all_sources !== false);
  const picks = sources.map((source) =>
    checkbox(source.title || source.file_name, agent.data_source_uuids.includes(source.uuid), { value: source.uuid }),
  );
  const chosen = h(
    "fieldset",
    {},
    h("legend", {}, "Sources this agent answers from"),
    picks.length ? picks.map((pick) => pick.element) : h("p", { class: "hint" }, "The chatbot has no sources yet."),
  );
  const sync = () => (chosen.hidden = all.input.checked);
  all.input.addEventListener("change", sync);
  sync();
  const read = (body) =>
    Object.assign(body, {
      use_all_sources: all.input.checked,
      data_source_uuids: picks.filter((pick) => pick.input.checked).map((pick) => pick.input.value),
    });
  return { elements: [all.element, chosen], read };
}

function replySection(agent) {
  const message = h("textarea", { rows: "3" });
  message.value = (agent.meta ?? {}).default_message ?? "";
  return {
    elements: [field("Reply", message, "What this agent always answers.")],
    read: (body) => Object.assign(body, { default_message: message.value }),
  };
}

function tagsSection(agent) {
  const tags = jsonField(
    "Tags (JSON)",
    (agent.meta ?? {}).tags ?? [],
    'A list of {"name", "criteria", "color": "#RRGGBB"}: conversations meeting the criteria get the tag.',
  );
  return { elements: [tags.element], read: (body) => Object.assign(body, { tags: tags.read([]) }) };
}

function escalationSection(agent) {
  const settings = agent.human_escalation_settings ?? {};
  const texts = ESCALATION_TEXTS.map(([key, label]) => {
    const area = h("textarea", { rows: "2" });
    area.value = settings[key] ?? "";
    return [key, area, field(label, area)];
  });
  const monitored = h("textarea", { rows: "3" });
  monitored.value = (settings.monitored_messages ?? []).join("\n");
  const notifications = checkbox("Notify operators", Boolean(settings.notifications_enabled));
  const sound = checkbox("Play a sound", Boolean(settings.sound_enabled));
  const elements = [
    ...texts.map(([, , element]) => element),
    field("Monitored phrases", monitored, "One per line: an AI reply containing one flags the conversation."),
    notifications.element,
    sound.element,
  ];
  const read = (body) => {
    const escalation = Object.fromEntries(texts.map(([key, area]) => [key, area.value]));
    escalation.monitored_messages = lines(monitored.value);
    escalation.notifications_enabled = notifications.input.checked;
    escalation.sound_enabled = sound.input.checked;
    body.human_escalation_settings = escalation;
  };
  return { elements, read };
}

/** Which sections each type has, in the order they show. */
const SECTIONS = [
  [(type) => ROUTED.includes(type), routingSection],
  [(type) => type === AgentType.USER_FACING, sourcesSection],
  [(type) => type === AgentType.PRE_CANNED || type === AgentType.SPAM_DEFENSE, replySection],
  [(type) => type === AgentType.BACKGROUND, tagsSection],
  [(type) => type === AgentType.HUMAN_ESCALATION, escalationSection],
];
