// How the dashboard names where a conversation is held: the web (the widget and the API, no channel) or one of the
// chatbot's channels, by its name and its type as people say it (GET /chatbot/{uuid}/channels).
import { get } from "./api.js";

const TYPES = {
  web: "Web",
  telegram: "Telegram",
  slack: "Slack",
  generic: "Generic",
  whatsapp: "WhatsApp",
  messenger: "Messenger",
  instagram: "Instagram",
  email: "Email",
  sms: "SMS",
};
export const WEB_LABEL = "Web (widget and API)";

export const typeLabel = (type) => TYPES[type] ?? type;

/** "Helpdesk (Generic)", or the type alone for a channel without a name. */
export const channelLabel = (channel) =>
  channel.name ? `${channel.name} (${typeLabel(channel.type)})` : typeLabel(channel.type);

/** The chatbot's channels, oldest first, by uuid (a Map keeps their order). */
export async function channelsOf(bot, signal) {
  const channels = await get(`/chatbot/${bot}/channels`, { signal });
  return new Map(channels.map((channel) => [channel.uuid, channel]));
}

/** The options of a channel filter: any, the web (as `web` spells it: `none` for the conversations), each channel. */
export function channelOptions(channels, web) {
  return [["", "All channels"], [web, WEB_LABEL], ...[...channels.values()].map((c) => [c.uuid, channelLabel(c)])];
}
