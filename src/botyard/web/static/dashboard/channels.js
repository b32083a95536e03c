// A chatbot's channels (Telegram, Slack, a generic signed channel): each with its status (last message received,
// last reply sent, last error and its time), its inbound URL, its credentials as hints only; enable or disable,
// its settings, a test message, delete; and the form to add one. Roles without the manage permission see it all
// read-only (the server refuses their changes anyway).
import { Permission } from "/static/shared/names.js";
import { get, post, request } from "./api.js";
import { addChannelForm, copyBox, slackManifest } from "./channel-add.js";
import { metaWebhook } from "./channel-meta.js";
import { typeLabel } from "./channel-names.js";
import {
  append,
  badge,
  busy,
  checkbox,
  clear,
  confirmDialog,
  field,
  formatDate,
  h,
  heading,
  notice,
  select,
} from "./ui.js";

const MODES = [
  ["webhook", "Webhook"],
  ["polling", "Polling"],
];
const TO_HINT = {
  telegram: "A chat id: a private chat's is the user's id (it must have written to the bot first).",
  slack: "A channel or DM id (C…, D…) the bot is in.",
  generic: "The user id the callback receives (user.id).",
  sms: "A phone number in international form (+14155550100).",
  whatsapp: "A number in international form (it must have written to yours in the last 24 hours).",
  messenger: "A page-scoped id (the person must have written to the page in the last 24 hours).",
  instagram: "An Instagram-scoped id (the person must have written to you in the last 24 hours).",
  email: "An email address: the mail goes out through the channel's SMTP server.",
};

export async function render(ctx) {
  const list = h("div", { "aria-label": "Channels", role: "list" });
  const secretBox = h("div", {});
  const draw = async () => {
    const channels = await get(`/chatbot/${ctx.chatbot.uuid}/channels`, { signal: ctx.signal });
    const cards = channels.map((channel) => channelCard(ctx, channel, draw));
    clear(list, ...(cards.length ? cards : [h("p", {}, "No channels yet: this chatbot answers in the widget only.")]));
  };
  const readOnly = ctx.can(Permission.MANAGE)
    ? null
    : h("p", { class: "hint", role: "note" }, "You can see the channels; an owner or admin adds and changes them.");
  append(ctx.main, [
    heading(`Channels: ${ctx.chatbot.name}`),
    h(
      "p",
      { class: "lead" },
      "Answer where your customers write: WhatsApp, Messenger, Instagram, email, SMS, Telegram, Slack, or your " +
        "own system. A channel's messages get the same answers as the widget's, and its conversations reach the " +
        "Inbox when someone asks for a person.",
    ),
    readOnly,
    secretBox,
    list,
    await addChannelForm(ctx, async (channel) => {
      showAdded(secretBox, channel);
      await draw();
    }),
  ]);
  try {
    await draw();
  } catch (error) {
    if (error.name === "AbortError") throw error;
    list.append(h("p", { role: "alert", class: "alert" }, `The channels could not be loaded: ${error.message}`));
  }
}

/** What the owner must copy now: the generic channel's secret is shown this once; Slack's manifest gets its URL. */
function showAdded(box, channel) {
  if (channel.type === "generic") {
    clear(
      box,
      h(
        "div",
        { class: "card once", role: "status" },
        h("p", {}, `${channel.name || "The generic channel"}: copy the signing secret now, it is not shown again.`),
        copyBox("Signing secret", channel.signing_secret ?? ""),
        copyBox("Inbound URL", channel.inbound_url),
      ),
    );
  } else if (channel.type === "slack") {
    clear(
      box,
      h(
        "div",
        { class: "card once", role: "status" },
        h("p", {}, "In your Slack app's Event Subscriptions, set the Request URL to this inbound URL:"),
        copyBox("Inbound URL", channel.inbound_url),
      ),
    );
  } else clear(box);
}

function when(iso, never = "never") {
  return iso ? formatDate(iso) : never;
}

function statusFacts(channel) {
  const status = channel.status;
  const error = status.last_error
    ? h("dd", { class: "alert" }, `${status.last_error} (${when(status.last_error_at)})`)
    : h("dd", {}, "none");
  const credentials = Object.entries(channel.credentials).map(([name, hint]) => `${name.replace("_", " ")} ${hint}`);
  return h(
    "dl",
    { class: "facts", "aria-label": `Status of ${channel.name || channel.type}` },
    h("dt", {}, "Last message received"),
    h("dd", {}, when(status.last_event_at)),
    h("dt", {}, "Last reply sent"),
    h("dd", {}, when(status.last_sent_at)),
    h("dt", {}, "Last error"),
    error,
    h("dt", {}, "Credentials"),
    h("dd", {}, credentials.join(", ") || "none"),
    h("dt", {}, "Messages joined within"),
    h("dd", {}, `${channel.settings.burst_seconds} s`),
    h("dt", {}, "New conversation after"),
    h("dd", {}, `${channel.settings.session_idle_hours} h idle`),
  );
}

function channelCard(ctx, channel, draw) {
  const note = notice();
  const label = channel.name || typeLabel(channel.type);
  const badges = [
    badge(typeLabel(channel.type)),
    channel.type === "telegram" ? badge(channel.settings.mode) : null,
    badge(channel.enabled ? "enabled" : "disabled", channel.enabled ? "ok" : ""),
  ];
  const toggle = h("button", { type: "button" }, channel.enabled ? "Disable" : "Enable");
  toggle.addEventListener("click", () =>
    busy(toggle, note, async () => {
      await post(`/channel/${channel.uuid}/update`, { enabled: !channel.enabled });
      await draw();
    }),
  );
  const remove = h("button", { type: "button", class: "danger" }, "Delete");
  remove.addEventListener("click", async () => {
    const question = `Delete the channel “${label}”? It stops answering; its conversations stay.`;
    if (!(await confirmDialog(question))) return;
    await busy(remove, note, async () => {
      await request("DELETE", `/channel/${channel.uuid}/delete`);
      await draw();
    });
  });
  const manifest =
    channel.type === "slack" ? copyBox("App manifest", slackManifest(channel.name, channel.inbound_url), 13) : null;
  return h(
    "article",
    { class: "card", role: "listitem", "aria-labelledby": `channel-${channel.uuid}`, "data-uuid": channel.uuid },
    h("h2", { id: `channel-${channel.uuid}` }, label),
    h("p", { class: "actions" }, ...badges),
    statusFacts(channel),
    channel.type === "email" ? null : copyBox("Inbound URL", channel.inbound_url), // a mailbox is read, not posted to
    manifest,
    metaWebhook(channel, copyBox),
    h("div", { class: "actions", "data-needs": "manage" }, toggle, remove),
    note.element,
    settingsForm(channel, draw),
    testForm(channel),
  );
}

function settingsForm(channel, draw) {
  const note = notice();
  const name = h("input", { type: "text", maxlength: "200", value: channel.name });
  const mode = select(MODES, channel.settings.mode);
  const number = (value, min, max, step) => h("input", { type: "number", min, max, step, value, required: true });
  const burst = number(channel.settings.burst_seconds, 0, 30, 0.5);
  const idle = number(channel.settings.session_idle_hours, 1, 2160, 1);
  const enabled = checkbox("Enabled: the inbound URL takes messages", channel.enabled);
  const save = h("button", { type: "submit", class: "primary" }, "Save channel");
  const form = h(
    "form",
    { "data-needs": "manage", "aria-label": `Settings of ${channel.name || channel.type}` },
    h("h3", {}, "Settings"),
    field("Name", name),
    channel.type === "telegram" ? field("Mode", mode, "Switching sets or removes the bot's webhook.") : null,
    h("div", { class: "row" }, field("Burst seconds", burst), field("Session idle hours", idle)),
    enabled.element,
    save,
    note.element,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(save, note, async () => {
      await post(`/channel/${channel.uuid}/update`, {
        name: name.value.trim(),
        enabled: enabled.input.checked,
        // the whole settings object: the ones not sent would go back to their defaults
        settings: {
          mode: channel.type === "telegram" ? mode.value : channel.settings.mode,
          burst_seconds: Number(burst.value),
          session_idle_hours: Number(idle.value),
          ...(channel.settings.template ? { template: channel.settings.template } : {}),
        },
      });
      note.ok("Channel saved.");
      await draw();
    });
  });
  return form;
}

function testForm(channel) {
  const note = notice();
  const to = h("input", { type: "text", required: true, maxlength: "200", spellcheck: "false" });
  const text = h("input", { type: "text", maxlength: "4000", placeholder: "This is a test message from Botyard…" });
  const send = h("button", { type: "submit" }, "Send test message");
  const form = h(
    "form",
    { "data-needs": "manage", "aria-label": `Test message on ${channel.name || channel.type}` },
    h("h3", {}, "Send a test message"),
    h("div", { class: "row" }, field("Send to", to, TO_HINT[channel.type] ?? ""), field("Text (optional)", text)),
    send,
    note.element,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(send, note, async () => {
      const sent = await post(`/channel/${channel.uuid}/test`, { to: to.value.trim(), text: text.value.trim() || null });
      note.ok(`Test message sent to ${sent.to}${sent.parts > 1 ? ` in ${sent.parts} messages` : ""}.`);
    });
  });
  return form;
}
