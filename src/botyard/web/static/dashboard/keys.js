// API keys for programs (owners and admins): create a named key (shown once), see when each was last used, revoke.
import { get, post } from "./api.js";
import { shownOnce } from "./once.js";
import { badge, busy, clear, confirmDialog, field, formatDate, h, headRow, heading, notice, tableWrap } from "./ui.js";

export async function render(ctx) {
  const note = notice();
  const shown = h("div");
  const rows = h("tbody");
  const table = h(
    "table",
    {},
    h("caption", {}, "API keys"),
    headRow(["Name", "Prefix", "Made by", "Created", "Last used", "State", "Actions"]),
    rows,
  );

  async function load() {
    const keys = await get("/account/api-keys", { signal: ctx.signal });
    clear(rows, ...keys.map(row));
  }

  function row(key) {
    const label = key.name || key.prefix;
    const revoke = h("button", { type: "button", class: "small danger", hidden: Boolean(key.revoked_at) }, "Revoke");
    revoke.setAttribute("aria-label", `Revoke ${label}`);
    revoke.addEventListener("click", async () => {
      if (!(await confirmDialog(`Revoke the key “${label}”? Programs using it are refused at once.`, "Revoke"))) return;
      await busy(revoke, note, async () => {
        await post(`/account/api-key/${key.prefix}/revoke`);
        note.ok(`Revoked ${label}.`);
        await load();
      });
    });
    const state = key.revoked_at ? badge(`revoked ${formatDate(key.revoked_at)}`, "bad") : badge("active", "ok");
    return h(
      "tr",
      { "data-prefix": key.prefix },
      h("th", { scope: "row" }, key.name || "(no name)"),
      h("td", {}, h("code", {}, `${key.prefix}…`)),
      h("td", {}, maker(key)),
      h("td", {}, formatDate(key.created_at)),
      h("td", {}, key.last_used_at ? formatDate(key.last_used_at) : "never"),
      h("td", {}, state),
      h("td", { class: "actions" }, revoke),
    );
  }

  // Who made it: a member, a member since removed (the key outlived them), or a program or the command line.
  function maker(key) {
    if (key.made_by_email) return key.made_by_email;
    return key.made_by ? badge("a removed member", "bad") : "the command line, setup or a key";
  }

  const name = h("input", { type: "text", name: "name", required: true, maxlength: "100", autocomplete: "off" });
  const create = h("button", { type: "submit", class: "primary" }, "Create key");
  const form = h("form", { class: "card inline-form" }, field("Key name", name, "What uses it: “Zapier”, “nightly sync”."), create);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(create, note, async () => {
      const made = await post("/account/api-key/create", { name: name.value.trim() });
      name.value = "";
      const text = `The key “${made.name}”, shown only this once: give it to the program (Authorization: Bearer …).`;
      clear(shown, shownOnce("New API key", made.key, text));
      await load();
    });
  });

  ctx.main.append(
    heading("API keys"),
    h("p", { class: "lead" }, "Keys let programs call the API with the rights of an admin of this account."),
    h("h2", {}, "New key"),
    form,
    note.element,
    shown,
    h("h2", {}, "All keys"),
    tableWrap(table, "API keys"),
  );
  await load();
}
