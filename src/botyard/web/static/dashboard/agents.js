// Agents of one chatbot: the list with an enabled switch each, create (every type), delete. Editing is agent-edit.js.
import { AgentType } from "/static/shared/names.js";
import { get, post, request } from "./api.js";
import { badge, busy, clear, confirmDialog, field, h, heading, notice, select } from "./ui.js";

export const TYPES = [
  [AgentType.USER_FACING, "User-facing: answers from the knowledge"],
  [AgentType.HUMAN_ESCALATION, "Human escalation: hands the visitor to a person"],
  [AgentType.PRE_CANNED, "Pre-canned: always the same reply"],
  [AgentType.SPAM_DEFENSE, "Spam defense: replies to spam and abuse"],
  [AgentType.BACKGROUND, "Background: tags conversations, never replies"],
];

export async function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const list = h("div", { class: "agent-list" });

  async function load() {
    const agents = await get(`/chatbot/${bot}/agents`, { signal: ctx.signal });
    clear(list, ...agents.map((agent) => agentCard(agent, bot, note, load)));
    if (!agents.length) list.append(h("p", { class: "empty" }, "No agents: the chatbot cannot answer."));
  }

  ctx.main.append(
    heading(`Agents: ${ctx.chatbot.name}`),
    h("p", { class: "lead" }, "Each question goes to the enabled agent whose name and description fit it best."),
    h("section", { "aria-labelledby": "list-h" }, h("h2", { id: "list-h" }, "Agents"), note.element, list),
    h("section", { "aria-labelledby": "new-h" }, h("h2", { id: "new-h" }, "New agent"), createForm(bot, load)),
  );
  await load();
}

/** The form that creates an agent of any type (disabled, as every new agent is); `reload` redraws the list. */
function createForm(bot, reload) {
  const createNote = notice();
  const name = h("input", { type: "text", required: true, maxlength: "200" });
  const type = select(TYPES, AgentType.USER_FACING);
  const description = h("textarea", { rows: "2" });
  const create = h("button", { type: "submit", class: "primary" }, "Create agent");
  const form = h(
    "form",
    { class: "card", "data-needs": "knowledge" },
    h("div", { class: "row" }, field("Name", name), field("Type", type)),
    field("Description", description, "Routing compares each question with the agents' names and descriptions."),
    create,
    createNote.element,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(create, createNote, async () => {
      const agent = await post(`/chatbot/${bot}/agent/create`, {
        name: name.value.trim(),
        type: type.value,
        description: description.value.trim(),
      });
      name.value = description.value = "";
      createNote.ok(`Created ${agent.name} (disabled): switch it on when it is ready.`);
      await reload();
    });
  });
  return form;
}

function agentCard(agent, bot, note, reload) {
  const enabled = enabledSwitch(agent, note);
  const edit = `Edit ${agent.name}`;
  const functions = agent.tool_functions?.length ?? 0;
  return h(
    "article",
    { class: "card agent-card", "data-uuid": agent.uuid, "aria-labelledby": `agent-${agent.uuid}` },
    h(
      "div",
      {},
      h("h3", { id: `agent-${agent.uuid}` }, agent.name, " ", badge(agent.type)),
      h("p", {}, agent.description || "No description."),
      functions ? h("p", {}, `${functions} tool function${functions === 1 ? "" : "s"}`) : null,
    ),
    h(
      "div",
      { class: "actions" },
      h(
        "span",
        { class: "field check" },
        enabled,
        h("label", { for: enabled.id }, "Enabled", h("span", { class: "visually-hidden" }, ` (${agent.name})`)),
      ),
      h("a", { class: "button small", href: `#/bot/${bot}/agents/${agent.uuid}`, "aria-label": edit }, "Edit"),
      deleteButton(agent, note, reload),
    ),
  );
}

/** The agent's enabled switch: saved as soon as it is flipped, flipped back if the save fails. */
function enabledSwitch(agent, note) {
  const enabled = h("input", { type: "checkbox", role: "switch", checked: Boolean(agent.enabled) });
  enabled.id = `enabled-${agent.uuid}`;
  enabled.addEventListener("change", async () => {
    enabled.disabled = true;
    try {
      const saved = await post(`/agent/${agent.uuid}/update`, { enabled: enabled.checked });
      enabled.checked = Boolean(saved.enabled);
      note.ok(`${agent.name} ${saved.enabled ? "enabled" : "disabled"}.`);
    } catch (error) {
      enabled.checked = !enabled.checked;
      note.error(error);
    } finally {
      enabled.disabled = false;
    }
  });
  return enabled;
}

function deleteButton(agent, note, reload) {
  const remove = h("button", { type: "button", class: "small danger", "aria-label": `Delete ${agent.name}` }, "Delete");
  remove.addEventListener("click", async () => {
    if (!(await confirmDialog(`Delete the agent “${agent.name}” and its tool functions?`))) return;
    await busy(remove, note, async () => {
      await request("DELETE", `/agent/${agent.uuid}/delete`);
      note.ok(`Deleted ${agent.name}.`);
      await reload();
    });
  });
  return remove;
}
