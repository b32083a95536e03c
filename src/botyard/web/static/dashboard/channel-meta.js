// Meta's channels on the Channels page (WhatsApp, Messenger, Instagram, through the owner's own Meta app): the
// steps to follow on Meta's side and the credentials to give in "Add a channel", then the callback URL and the
// verify token to paste into the app's webhook form, and the fields to subscribe, on each such channel's card.
import { h } from "./ui.js";

export const META_TYPES = [
  ["whatsapp", "WhatsApp (Cloud API, your Meta app)"],
  ["messenger", "Messenger (a Facebook Page, your Meta app)"],
  ["instagram", "Instagram (a professional account, your Meta app)"],
];
const STEPS = {
  whatsapp:
    "At developers.facebook.com: create a Business app and add WhatsApp. From WhatsApp → API Setup copy the " +
    "Phone number ID; make a system user's access token (Business settings → System users, with " +
    "whatsapp_business_messaging); copy the App secret from App settings → Basic.",
  messenger:
    "At developers.facebook.com: create a Business app and add Messenger. In Messenger API Settings generate " +
    "the Page access token of your page and note the Page ID; copy the App secret from App settings → Basic.",
  instagram:
    "At developers.facebook.com: add Instagram to your app, link the professional account to a Facebook Page, " +
    "and generate that page's access token; note the Instagram account ID; copy the App secret (App settings → Basic).",
};
const KEY = {
  whatsapp: ["phone_number_id", "Phone number ID", "WhatsApp → API Setup (not the number itself)."],
  messenger: ["page_id", "Page ID", "The page's id (its About section, or Messenger API Settings)."],
  instagram: ["instagram_account_id", "Instagram account ID", "The professional account's id."],
};
const FIELDS = {
  whatsapp: "messages",
  messenger: "messages, messaging_postbacks, message_deliveries, message_reads, message_echoes",
  instagram: "messages, messaging_postbacks",
};

const secretInput = () => h("input", { type: "password", autocomplete: "off", maxlength: "512", spellcheck: "false" });

/** The form's fieldsets, by type, and how to read each one's credentials. */
export function metaParts(field) {
  const parts = {};
  const readers = {};
  for (const [kind, label] of META_TYPES) {
    const token = secretInput();
    const secret = secretInput();
    const id = h("input", { type: "text", maxlength: "64", spellcheck: "false", inputmode: "numeric" });
    const [key, keyLabel, keyHint] = KEY[kind];
    parts[kind] = h(
      "fieldset",
      {},
      h("legend", {}, label.split(" (")[0]),
      h("p", { class: "hint" }, STEPS[kind]),
      field("Access token", token, "Checked with Meta when you add the channel; never shown again."),
      field("App secret", secret, "Every delivery is checked with it (X-Hub-Signature-256)."),
      field(keyLabel, id, keyHint),
    );
    readers[kind] = () => ({ access_token: token.value.trim(), app_secret: secret.value.trim(), [key]: id.value.trim() });
    readers[kind].clear = () => {
      for (const input of [token, secret, id]) input.value = "";
    };
  }
  return { parts, readers };
}

/** What to paste into the Meta app's webhook form (Callback URL, Verify token) and which fields to subscribe. */
export function metaWebhook(channel, copyBox) {
  if (!FIELDS[channel.type]) return null;
  return h(
    "div",
    {},
    h(
      "p",
      { class: "hint" },
      "In your Meta app's Webhooks: paste this inbound URL as the Callback URL and this verify token, then " +
        `subscribe the fields ${FIELDS[channel.type]}. Replies go free-form only within 24 hours of the ` +
        "customer's last message; after that WhatsApp needs a template (settings.template).",
    ),
    copyBox("Verify token", channel.verify_token ?? ""),
  );
}
