// The Channels page's "Add a channel" form: Telegram (a bot token, webhook or polling), Slack (the app manifest
// to paste, then its bot token and signing secret), the generic signed channel (the owner's callback URL) or email
// (a mailbox: `channel-email.js`).
import { post } from "./api.js";
import { smsPart } from "./channel-sms.js";
import { META_TYPES, metaParts } from "./channel-meta.js";
import { emailPart } from "./channel-email.js";
import { serviceInfo } from "./service.js";
import { busy, clear, field, h, notice, select } from "./ui.js";

const TYPES = [
  ["telegram", "Telegram"],
  ["slack", "Slack"],
  ["sms", "SMS (Twilio)"],
  ["generic", "Generic (your own system, signed JSON)"],
  ...META_TYPES,
  ["email", "Email (a mailbox: IMAP and SMTP)"],
];
const MODES = [
  ["webhook", "Webhook: Telegram delivers to this service (needs a public https address)"],
  ["polling", "Polling: this service asks Telegram (works behind NAT, no public address)"],
];

/** Slack's app manifest for a bot that answers DMs and mentions; `inbound` fills the request URL once known. */
export function slackManifest(name, inbound) {
  const display = JSON.stringify(name || "Botyard");
  return [
    "display_information:",
    `  name: ${display}`,
    "features:",
    "  bot_user:",
    `    display_name: ${display}`,
    "    always_online: true",
    "oauth_config:",
    "  scopes:",
    "    bot: [app_mentions:read, chat:write, im:history, im:read, im:write]",
    "settings:",
    "  event_subscriptions:",
    `    request_url: ${inbound || "https://your-botyard.example/channels/CHANNEL_UUID/inbound"}`,
    "    bot_events: [app_mention, message.im]",
  ].join("\n");
}

/** A read-only code box with a Copy button (an inbound URL, a manifest, a secret). */
export function copyBox(label, value, rows = 1) {
  const box =
    rows > 1
      ? h("textarea", { rows: String(rows), readonly: true, class: "code", spellcheck: "false" })
      : h("input", { type: "text", readonly: true, class: "code", spellcheck: "false" });
  box.value = value;
  const copy = h("button", { type: "button", class: "small" }, `Copy ${label.toLowerCase()}`);
  copy.addEventListener("click", async () => {
    box.select();
    try {
      await navigator.clipboard.writeText(value);
      copy.textContent = "Copied";
    } catch {
      copy.textContent = "Selected: press Ctrl+C (⌘C)";
    }
  });
  return h("div", {}, field(label, box), h("p", { class: "actions" }, copy));
}

/** The webhook mode's warning when the service's public address is not one Telegram delivers to. */
async function publicUrlNote(mode) {
  const note = h("div", { class: "hint", role: "note" });
  let url = "";
  try {
    url = (await serviceInfo()).public_url ?? "";
  } catch {
    return note; // the server says it anyway when the channel is made (422 public_url_required)
  }
  const draw = () => {
    const blocked = mode.value === "webhook" && !url.startsWith("https://");
    const usePolling = h("button", { type: "button", class: "small" }, "Use polling instead");
    usePolling.addEventListener("click", () => {
      mode.value = "polling";
      draw();
    });
    const why =
      `This service's public address (BOTYARD_PUBLIC_URL) is ${url || "not set"}: Telegram delivers webhooks ` +
      "only to a public https address. Set it to the address Telegram reaches this service at, or use polling.";
    if (blocked) clear(note, h("p", {}, why), usePolling);
    else clear(note);
  };
  mode.addEventListener("change", draw);
  draw();
  return note;
}

function numberInput(value, min, max, step) {
  return h("input", { type: "number", min, max, step, value, required: true });
}

/** The form; `onAdded(channel)` runs after a channel is made (the generic one's answer carries its secret). */
export async function addChannelForm(ctx, onAdded) {
  const note = notice();
  const type = select(TYPES, "telegram");
  const name = h("input", { type: "text", maxlength: "200", placeholder: "Shop bot" });
  const token = h("input", { type: "password", autocomplete: "off", maxlength: "512", spellcheck: "false" });
  const mode = select(MODES, "webhook");
  const slackToken = h("input", { type: "password", autocomplete: "off", maxlength: "512", placeholder: "xoxb-..." });
  const signingSecret = h("input", { type: "password", autocomplete: "off", maxlength: "512" });
  const callback = h("input", { type: "url", maxlength: "2048", placeholder: "https://helpdesk.example/botyard" });
  const burst = numberInput(1, 0, 30, 0.5);
  const idle = numberInput(24, 1, 2160, 1);
  const manifest = h("textarea", { rows: "13", readonly: true, class: "code", spellcheck: "false" });
  const sms = smsPart();
  const meta = metaParts(field);
  const mail = emailPart();
  const parts = {
    ...meta.parts,
    telegram: h(
      "fieldset",
      {},
      h("legend", {}, "Telegram"),
      h("p", { class: "hint" }, "In Telegram, ask @BotFather for /newbot: it gives you the bot token."),
      field("Bot token", token, "Checked with Telegram (getMe) when you add the channel; never shown again."),
      field("Mode", mode),
      await publicUrlNote(mode),
    ),
    slack: h(
      "fieldset",
      {},
      h("legend", {}, "Slack"),
      h(
        "p",
        { class: "hint" },
        "At api.slack.com/apps: Create New App → From a manifest, paste this manifest, install the app, then " +
          "copy the Bot User OAuth Token and the Signing Secret here. Once the channel exists, its page shows the " +
          "manifest with its inbound URL filled in, for Event Subscriptions.",
      ),
      field("App manifest", manifest),
      field("Bot User OAuth Token", slackToken, "From OAuth & Permissions; checked with Slack (auth.test)."),
      field("Signing secret", signingSecret, "Basic Information → App Credentials → Signing Secret."),
    ),
    generic: h(
      "fieldset",
      {},
      h("legend", {}, "Generic channel"),
      field(
        "Callback URL",
        callback,
        "Where replies are POSTed, signed. Once added, you get the inbound URL to POST messages to and the " +
          "signing secret (shown once).",
      ),
    ),
    sms: sms.fieldset,
    email: mail.fieldset,
  };
  const drawType = () => {
    for (const [key, part] of Object.entries(parts)) part.hidden = key !== type.value;
    manifest.value = slackManifest(name.value.trim(), "");
  };
  type.addEventListener("change", drawType);
  name.addEventListener("input", drawType);
  drawType();
  const add = h("button", { type: "submit", class: "primary" }, "Add channel");
  const form = h(
    "form",
    { class: "card", "data-needs": "manage", "aria-labelledby": "add-channel-h" },
    h("h2", { id: "add-channel-h" }, "Add a channel"),
    field("Type", type),
    field("Name", name, "For you: it names the channel on this page."),
    ...Object.values(parts),
    h(
      "div",
      { class: "row" },
      field("Burst seconds", burst, "Messages less than this apart are one question (0-30)."),
      field("Session idle hours", idle, "After this long, the next message starts a new conversation."),
    ),
    add,
    note.element,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const kind = type.value;
    const credentials = meta.readers[kind]
      ? meta.readers[kind]()
      : kind === "telegram"
        ? { bot_token: token.value.trim() }
        : kind === "slack"
          ? { bot_token: slackToken.value.trim(), signing_secret: signingSecret.value.trim() }
          : kind === "sms"
            ? sms.credentials()
          : kind === "email"
            ? mail.credentials().given
            : { callback_url: callback.value.trim() };
    const missing = Object.entries(credentials).find(([, value]) => !value);
    if (missing) return note.error(`Fill in the ${missing[0].replace("_", " ")}.`);
    if (kind === "email") Object.assign(credentials, mail.credentials().optional);
    const settings = {
      mode: kind === "telegram" ? mode.value : "webhook",
      burst_seconds: Number(burst.value),
      session_idle_hours: Number(idle.value),
    };
    await busy(add, note, async () => {
      const body = { type: kind, name: name.value.trim(), credentials, settings };
      const channel = await post(`/chatbot/${ctx.chatbot.uuid}/channel/create`, body);
      for (const secret of [token, slackToken, signingSecret, callback, name]) secret.value = "";
      sms.clear();
      meta.readers[kind]?.clear();
      mail.reset();
      drawType();
      note.ok(`Channel added: ${channel.name || channel.type}.`);
      await onAdded(channel);
    });
  });
  return form;
}
