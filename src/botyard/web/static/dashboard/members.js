// Members of the account (owners and admins): their roles, removal, reset links; invitations by link.
import { Permission, Role } from "/static/shared/names.js";
import { get, post } from "./api.js";
import { shownOnce } from "./once.js";
import { busy, checkbox, clear, confirmDialog, field, formatDate, h, headRow, heading, notice, select, tableWrap } from "./ui.js";

const ROLES = Object.values(Role);

export async function render(ctx) {
  const note = notice();
  const owner = ctx.can(Permission.OWNERSHIP);
  const grantable = ROLES.filter((role) => owner || role !== Role.OWNER);
  const shown = h("div");
  const memberRows = h("tbody");
  const inviteRows = h("tbody");
  const members = h("table", {}, h("caption", {}, "Members"), headRow(["Name", "Email", "Role", "Actions"]), memberRows);
  const invites = h("table", {}, h("caption", {}, "Open invitations"), headRow(["Email", "Role", "Expires", "Actions"]), inviteRows);

  async function load() {
    const [people, open] = await Promise.all([get("/account/members"), get("/account/invitations")]);
    clear(memberRows, ...people.map(memberRow));
    clear(inviteRows, ...open.map(inviteRow));
    invites.hidden = open.length === 0;
  }

  function memberRow(person) {
    const locked = person.role === Role.OWNER && !owner;
    const role = select(locked ? ROLES : grantable, person.role, { "aria-label": `Role of ${person.email}`, disabled: locked });
    role.addEventListener("change", () =>
      busy(role, note, async () => {
        await post(`/account/member/${person.uuid}/role`, { role: role.value });
        note.ok(`${person.email} is now ${role.value}.`);
      }).finally(load),
    );
    const reset = h("button", { type: "button", class: "small", disabled: locked }, "Reset link");
    reset.addEventListener("click", () =>
      busy(reset, note, async () => {
        const made = await post(`/account/member/${person.uuid}/reset-link`);
        const text = `A password reset link for ${made.email}, valid for an hour, once. Pass it on: it is not shown again.`;
        clear(shown, shownOnce("Reset link", made.link, text));
      }),
    );
    const remove = h("button", { type: "button", class: "small danger", disabled: locked }, "Remove");
    remove.addEventListener("click", async () => {
      // The keys a person made outlive them unless revoked with them: say which, and offer it (ticked).
      const keys = (await get("/account/api-keys")).filter((key) => key.made_by === person.uuid && !key.revoked_at);
      const names = keys.map((key) => `“${key.name || key.prefix}”`).join(", ");
      const offer = keys.length ? checkbox(`Also revoke the ${keys.length} API key(s) they made: ${names}`, true) : null;
      const question = `Remove ${person.email} from the account? Their sessions end at once.`;
      if (!(await confirmDialog(question, "Remove", offer && offer.element))) return;
      const revoke = Boolean(offer && offer.input.checked);
      await busy(remove, note, async () => {
        const done = await post(`/account/member/${person.uuid}/remove`, { revoke_keys: revoke });
        const revoked = done.revoked_keys ?? [];
        note.ok(revoked.length ? `Removed ${person.email} and revoked ${revoked.length} API key(s).` : `Removed ${person.email}.`);
        await load();
      });
    });
    return h(
      "tr",
      { "data-uuid": person.uuid },
      h("th", { scope: "row" }, person.name),
      h("td", {}, person.email),
      h("td", {}, role),
      h("td", { class: "actions" }, reset, remove),
    );
  }

  function inviteRow(invitation) {
    const withdraw = h("button", { type: "button", class: "small danger" }, "Withdraw");
    withdraw.addEventListener("click", () =>
      busy(withdraw, note, async () => {
        await post(`/account/invitation/${invitation.uuid}/withdraw`);
        note.ok(`Withdrew the invitation of ${invitation.email}.`);
        await load();
      }),
    );
    return h(
      "tr",
      {},
      h("th", { scope: "row" }, invitation.email),
      h("td", {}, invitation.role),
      h("td", {}, formatDate(invitation.expires_at)),
      h("td", { class: "actions" }, withdraw),
    );
  }

  const email = h("input", { type: "email", name: "email", required: true, autocomplete: "off" });
  const role = select(grantable, "editor", { name: "role" });
  const invite = h("button", { type: "submit", class: "primary" }, "Invite");
  const form = h("form", { class: "card inline-form" }, field("Email", email), field("Role", role), invite);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(invite, note, async () => {
      const made = await post("/account/invitation/create", { email: email.value.trim(), role: role.value });
      email.value = "";
      const text = `An invitation for ${made.email} as ${made.role}, valid for 7 days, once. Pass it on: it is not shown again.`;
      clear(shown, shownOnce("Invitation link", made.link, text));
      await load();
    });
  });

  ctx.main.append(
    heading("Members"),
    h("h2", {}, "Invite someone"),
    form,
    note.element,
    shown,
    h("h2", {}, "People"),
    tableWrap(members, "Members"),
    tableWrap(invites, "Open invitations"),
  );
  await load();
}
