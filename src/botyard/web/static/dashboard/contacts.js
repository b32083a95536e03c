// Contacts: the people who write to the account's chatbots, one person across every channel. A searchable list
// (name, email or phone, the channels they wrote on, when last seen) and a contact's page: how each channel knows
// them, every conversation they had (each a link to its transcript), an edit form, a merge with another contact
// found by search, the export of their data and their erasure. Two columns on every table, the rest inside the row,
// so that a phone's 360 px hold them without sideways scrolling.
import { get, post } from "./api.js";
import { typeLabel } from "./channel-names.js";
import { IdentityKind, Permission } from "/static/shared/names.js";
import { badge, busy, clear, confirmDialog, field, formatDate, h, headRow, heading, notice, tableWrap } from "./ui.js";

const PAGE = 50;
const KINDS = {
  [IdentityKind.EMAIL]: "Email",
  [IdentityKind.PHONE]: "Phone",
  [IdentityKind.TELEGRAM]: "Telegram",
  [IdentityKind.SLACK]: "Slack",
  [IdentityKind.MESSENGER]: "Messenger",
  [IdentityKind.INSTAGRAM]: "Instagram",
  [IdentityKind.WEBHOOK]: "Generic channel",
  [IdentityKind.VISITOR]: "Widget visitor",
};
const WIDGET = "widget";

const channelName = (type) => (type === WIDGET ? "Widget" : typeLabel(type));
const nameOf = (contact) => contact.name || contact.email || contact.phone || "Unnamed contact";
const reachOf = (contact) => [contact.email, contact.phone].filter(Boolean).join(" · ");

/** A widget visitor's and a generic channel's value say where first (a chatbot's, a channel's uuid): the id after
 * it is what tells two apart (the whole value is the title). */
const shownValue = (identity) =>
  [IdentityKind.VISITOR, IdentityKind.WEBHOOK].includes(identity.kind)
    ? identity.value.slice(identity.value.indexOf(":") + 1)
    : identity.value;

/** The contact uuid of the address (#/contacts/<uuid>), or "" for the list. */
const contactInHash = () => location.hash.match(/^#\/contacts\/([0-9a-f]{32})$/)?.[1] ?? "";

export function render(ctx) {
  const uuid = contactInHash();
  return uuid ? renderContact(ctx, uuid) : renderList(ctx);
}

function contactCell(contact) {
  const channels = (contact.channels ?? []).map((type) => badge(channelName(type)));
  return h(
    "td",
    {},
    h("a", { href: `#/contacts/${contact.uuid}`, dir: "auto" }, nameOf(contact)),
    reachOf(contact) ? h("span", { class: "sub", dir: "auto" }, reachOf(contact)) : null,
    channels.length ? h("span", { class: "contact-channels" }, ...channels) : null,
  );
}

function listRow(contact) {
  const count = contact.conversation_count;
  return h(
    "tr",
    { "data-uuid": contact.uuid },
    contactCell(contact),
    h(
      "td",
      {},
      formatDate(contact.last_seen_at || contact.created_at),
      h("span", { class: "sub" }, `${count} conversation${count === 1 ? "" : "s"}`),
    ),
  );
}

function renderList(ctx) {
  const note = notice();
  const search = h("input", { type: "search", autocomplete: "off", placeholder: "Name, email or phone" });
  const form = h(
    "form",
    { class: "card inline-form", role: "search", "aria-label": "Search contacts" },
    field("Search", search),
    h("button", { type: "submit", class: "primary" }, "Search"),
  );
  const body = h("tbody");
  const table = h(
    "table",
    { class: "contacts" },
    h("caption", {}, "Contacts, latest seen first"),
    headRow(["Contact", "Last seen"]),
    body,
  );
  const count = h("p", { class: "hint" });
  const more = h("button", { type: "button" }, "Show more");
  let shown = 0;
  let generation = 0;

  async function showMore(expected = generation) {
    const query = { q: search.value.trim(), limit: PAGE, offset: shown };
    const page = await get("/contacts", { query, signal: ctx.signal });
    if (expected !== generation) return; // a late reply of an earlier search
    shown += page.contacts.length;
    body.append(...page.contacts.map(listRow));
    more.hidden = shown >= page.total;
    count.textContent = page.total ? `Showing ${shown} of ${page.total}.` : "No contacts match.";
  }

  async function load() {
    generation += 1;
    shown = 0;
    clear(body);
    await showMore(generation);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(form.querySelector("button"), note, load);
  });
  more.addEventListener("click", () => busy(more, note, showMore));
  ctx.main.append(
    heading("Contacts"),
    h(
      "p",
      { class: "lead" },
      "The people who write to your chatbots, one person across every channel: the widget (with the name and email " +
        "they gave or your site passed in), email, WhatsApp, SMS, Telegram and the others.",
    ),
    form,
    note.element,
    tableWrap(table, "Contacts"),
    count,
    more,
  );
  return load();
}

function identityList(identities) {
  return h(
    "ul",
    { class: "identities" },
    ...identities.map((identity) =>
      h(
        "li",
        { class: "chip" },
        KINDS[identity.kind] ?? identity.kind,
        h("span", { class: "sub", dir: "auto", title: identity.value }, shownValue(identity)),
      ),
    ),
  );
}

function conversationRow(conversation) {
  const href = `#/bot/${conversation.chatbot_uuid}/conversations/${conversation.session_uuid}`;
  const count = conversation.message_count;
  return h(
    "tr",
    { "data-session": conversation.session_uuid },
    h(
      "td",
      {},
      h("a", { href }, `${conversation.chatbot_name} · ${channelName(conversation.channel)}`),
      conversation.preview ? h("span", { class: "sub", dir: "auto" }, conversation.preview) : null,
      conversation.visitor_page ? h("span", { class: "sub" }, `On ${conversation.visitor_page}`) : null,
    ),
    h(
      "td",
      {},
      badge(conversation.status),
      h("span", { class: "sub" }, formatDate(conversation.last_activity_at)),
      h("span", { class: "sub" }, `${count} message${count === 1 ? "" : "s"}`),
    ),
  );
}

function editForm(contact, note, onSaved) {
  const name = h("input", { type: "text", value: contact.name, maxlength: "200", autocomplete: "off" });
  const email = h("input", { type: "email", value: contact.email, maxlength: "320", autocomplete: "off" });
  const phone = h("input", { type: "tel", value: contact.phone, maxlength: "32", autocomplete: "off" });
  const text = h("textarea", { rows: "3", maxlength: "10000" });
  text.value = contact.note;
  const save = h("button", { type: "submit", class: "primary" }, "Save");
  const form = h(
    "form",
    { class: "card", "aria-label": "Edit the contact" },
    heading("Edit", 2),
    field("Name", name),
    field("Email", email),
    field("Phone", phone, "In international form, with its country code (+44 20 ...)."),
    field("Note", text, "For the team; the customer never sees it."),
    save,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(save, note, async () => {
      const body = { name: name.value, email: email.value, phone: phone.value, note: text.value };
      onSaved(await post(`/contact/${contact.uuid}/update`, body));
      note.ok("Saved.");
    });
  });
  return form;
}

function mergeForm(contact, ctx, note, onMerged) {
  const search = h("input", { type: "search", autocomplete: "off", placeholder: "Name, email or phone" });
  const find = h("button", { type: "submit" }, "Find");
  const results = h("ul", { class: "merge-results" });
  const form = h(
    "form",
    { class: "card", role: "search", "aria-label": "Merge with another contact" },
    heading("Merge", 2),
    h("p", { class: "hint" }, "The other contact's identities and conversations join this one, and it is deleted."),
    h("div", { class: "inline-form" }, field("Find the other contact", search), find),
    results,
  );
  const choice = (other) => {
    const button = h("button", { type: "button" }, "Merge into this contact");
    button.addEventListener("click", () =>
      busy(button, note, async () => {
        if (!(await confirmDialog(`Merge “${nameOf(other)}” into “${nameOf(contact)}”?`, "Merge"))) return;
        onMerged(await post(`/contact/${contact.uuid}/merge`, { contact_uuid: other.uuid }));
        note.ok(`Merged “${nameOf(other)}”.`);
      }),
    );
    return h("li", {}, h("span", { dir: "auto" }, nameOf(other)), " ", h("span", { class: "hint" }, reachOf(other)), " ", button);
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(find, note, async () => {
      const page = await get("/contacts", { query: { q: search.value.trim(), limit: 10 }, signal: ctx.signal });
      const others = page.contacts.filter((other) => other.uuid !== contact.uuid);
      clear(results, ...(others.length ? others.map(choice) : [h("li", { class: "empty" }, "No other contact matches.")]));
    });
  });
  return form;
}

function dataActions(contact, ctx, note) {
  const exportButton = h("button", { type: "button" }, "Download their data (JSON)");
  const erase = h("button", { type: "button", class: "danger" }, "Delete the contact and its conversations");
  exportButton.addEventListener("click", () =>
    busy(exportButton, note, async () => {
      const data = await post(`/contact/${contact.uuid}/export`);
      const href = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
      const link = h("a", { href, download: `contact-${contact.uuid}.json` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
    }),
  );
  erase.addEventListener("click", () =>
    busy(erase, note, async () => {
      const question = `Delete “${nameOf(contact)}” with every conversation they had and its messages? This cannot be undone.`;
      if (!(await confirmDialog(question))) return;
      const done = await post(`/contact/${contact.uuid}/delete`);
      ctx.go("#/contacts");
      note.ok(`Deleted, with ${done.conversations_deleted} conversations.`);
    }),
  );
  const allowed = ctx.can(Permission.MANAGE);
  exportButton.disabled = erase.disabled = !allowed;
  return h(
    "section",
    { class: "card", "aria-label": "Their data" },
    heading("Their data", 2),
    h("p", { class: "hint" }, allowed
      ? "Their right of access (everything held of them) and to erasure. Both are written to the audit log."
      : "Only an owner or an admin exports or erases a contact."),
    h("div", { class: "button-row" }, exportButton, erase),
  );
}

async function renderContact(ctx, uuid) {
  const note = notice();
  let contact = await get(`/contact/${uuid}`, { signal: ctx.signal });
  const title = heading(nameOf(contact));
  const summary = h("p", { class: "lead", dir: "auto" });
  const identities = h("div");
  const body = h("tbody");
  const table = h(
    "table",
    { class: "contacts" },
    h("caption", {}, "Every conversation, latest activity first"),
    headRow(["Conversation", "Status"]),
    body,
  );
  const show = (shown) => {
    contact = shown;
    title.textContent = nameOf(contact);
    summary.textContent = [reachOf(contact), contact.last_seen_at ? `last seen ${formatDate(contact.last_seen_at)}` : ""]
      .filter(Boolean)
      .join(" · ");
    clear(identities, identityList(contact.identities));
    clear(body, ...contact.conversations.map(conversationRow));
  };
  show(contact);
  const editing = ctx.can(Permission.LIVE);
  ctx.main.append(
    h("p", {}, h("a", { href: "#/contacts" }, "← All contacts")),
    title,
    summary,
    note.element,
    h("section", { "aria-label": "Known as" }, heading("Known as", 2), identities),
    h("div", { class: "contact-conversations" }, tableWrap(table, "Conversations")),
    editing ? editForm(contact, note, show) : h("p", { class: "hint" }, "Only people who answer conversations edit contacts."),
    editing ? mergeForm(contact, ctx, note, show) : null,
    dataActions(contact, ctx, note),
  );
}
