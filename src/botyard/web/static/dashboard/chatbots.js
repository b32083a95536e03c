// Chatbots: the list, create, delete. Settings, widget and embed code are on the chatbot's own page.
import { post, request } from "./api.js";
import { badge, busy, clear, confirmDialog, field, formatDate, h, heading, notice, tableWrap } from "./ui.js";

export function render(ctx) {
  const note = notice();
  const name = h("input", { type: "text", name: "name", required: true, maxlength: "200", autocomplete: "off" });
  const create = h("button", { type: "submit", class: "primary" }, "Create chatbot");
  const form = h("form", { class: "card inline-form" }, field("Name", name), create);
  const body = h("tbody");
  const table = h(
    "table",
    {},
    h("caption", {}, "Your chatbots"),
    h(
      "thead",
      {},
      h("tr", {}, ...["Name", "Visibility", "Created", "Actions"].map((text) => h("th", { scope: "col" }, text))),
    ),
    body,
  );
  const empty = h("p", { class: "empty" }, "No chatbots yet: create your first one above.");

  function draw(chatbots) {
    empty.hidden = chatbots.length > 0;
    table.hidden = chatbots.length === 0;
    clear(body, ...chatbots.map(row));
  }

  const link = (href, label, text) => h("a", { class: "button small", href, "aria-label": label }, text);

  function row(bot) {
    const remove = h(
      "button",
      { type: "button", class: "danger small", "aria-label": `Delete ${bot.name}`, "data-needs": "manage" },
      "Delete",
    );
    remove.addEventListener("click", async () => {
      if (!(await confirmDialog(`Delete the chatbot “${bot.name}” with all its knowledge and conversations?`))) return;
      await busy(remove, note, async () => {
        await request("DELETE", `/chatbot/${bot.uuid}/delete`);
        note.ok(`Deleted ${bot.name}.`);
        draw(await ctx.refreshChatbots());
      });
    });
    return h(
      "tr",
      { "data-uuid": bot.uuid },
      h("th", { scope: "row" }, h("a", { href: `#/chatbot/${bot.uuid}` }, bot.name)),
      h("td", {}, badge(bot.meta.visibility, bot.meta.visibility)),
      h("td", {}, formatDate(bot.created_at)),
      h(
        "td",
        { class: "actions" },
        link(`#/chatbot/${bot.uuid}`, `Settings of ${bot.name}`, "Settings"),
        link(`#/bot/${bot.uuid}/knowledge`, `Knowledge of ${bot.name}`, "Knowledge"),
        remove,
      ),
    );
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(create, note, async () => {
      const bot = await post("/chatbot/create", { name: name.value.trim() });
      sessionStorage.setItem("botyard.chatbot", bot.uuid);
      name.value = "";
      draw(await ctx.refreshChatbots());
      note.ok(`Created ${bot.name}. A new chatbot answers with its “General Q&A” agent; add knowledge next.`);
    });
  });

  ctx.main.append(
    heading("Chatbots"),
    h("div", { "data-needs": "manage" }, h("h2", {}, "New chatbot"), form),
    note.element,
    h("h2", {}, "All chatbots"),
    empty,
    tableWrap(table, "Chatbots"),
  );
  draw(ctx.chatbots);
}
