// Meta's 24-hour window where one applies (WhatsApp, Messenger, Instagram: free-form replies only until the inbox
// entry's `channel_window_closes_at`; after it a template or a tagged reply), as the Inbox shows it.

/** "2 h 5 min", "3 d": how long until an ISO time. */
function left(iso, now) {
  const minutes = Math.max(0, Math.floor((new Date(iso).getTime() - now) / 60000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

/** ", window open 23 h 10 min more", ", 24-hour window closed", or "" where no window applies. */
export function windowLine(entry, now = Date.now()) {
  const closes = entry.channel_window_closes_at;
  if (!closes) return "";
  if (new Date(closes).getTime() > now) return `, window open ${left(closes, now)} more`;
  return ", 24-hour window closed";
}
