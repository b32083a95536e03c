// The "Add a channel" form's SMS part: Twilio's Account SID and Auth Token, and the number (or Messaging Service)
// the channel sends from, with the steps to follow in the Twilio Console. The inbound URL to paste there is on the
// channel's card once it exists.
import { field, h } from "./ui.js";

function secretInput(placeholder) {
  return h("input", { type: "password", autocomplete: "off", maxlength: "512", spellcheck: "false", placeholder });
}

/** The fieldset, and the credentials its inputs hold (`clear()` empties them once the channel is made). */
export function smsPart() {
  const sid = h("input", { type: "text", maxlength: "64", spellcheck: "false", placeholder: "AC..." });
  const token = secretInput("");
  const from = h("input", { type: "text", maxlength: "64", spellcheck: "false", placeholder: "+14155550199 or MG..." });
  const fieldset = h(
    "fieldset",
    {},
    h("legend", {}, "SMS (Twilio)"),
    h(
      "p",
      { class: "hint" },
      "In the Twilio Console, copy the Account SID and Auth Token (Account Info) and the number that sends " +
        "(Phone Numbers → Active numbers), or a Messaging Service SID. Once the channel exists, paste its inbound " +
        "URL into the number's Messaging Configuration: “A message comes in” → Webhook, HTTP POST.",
    ),
    field("Account SID", sid),
    field("Auth token", token, "Checked with Twilio when you add the channel; never shown again."),
    field("Sends from", from, "The Twilio number in international form (+1…), or a Messaging Service SID (MG…)."),
  );
  const credentials = () => {
    const sender = from.value.trim();
    const key = sender.startsWith("MG") ? "messaging_service_sid" : "phone_number";
    return { account_sid: sid.value.trim(), auth_token: token.value.trim(), [key]: sender };
  };
  const clear = () => {
    for (const input of [sid, token, from]) input.value = "";
  };
  return { fieldset, credentials, clear };
}
