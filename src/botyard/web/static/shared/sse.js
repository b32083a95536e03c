// Server-sent events from a fetch Response. EventSource cannot POST or send an Authorization header, so the answer
// stream (a POST) and the dashboard's authenticated event stream are read with fetch and parsed here, following
// the field rules of the HTML standard's event-stream format.

/**
 * Yields `{event, data, id}` for each event of `response`'s body: `event` defaults to "message", `data` is the
 * parsed JSON (the raw string when it is not JSON), `id` the last id seen (as EventSource's lastEventId).
 * Breaking out of the loop cancels the body.
 */
export async function* readEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let lastId = "";
  let type = "";
  let data = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return; // an event without its closing blank line is incomplete: dropped, as the standard says
      buffer += value;
      // A trailing "\r" may be the first half of a "\r\n" split between chunks: it waits for the next chunk.
      const held = buffer.endsWith("\r") ? "\r" : "";
      const lines = buffer.slice(0, buffer.length - held.length).split(/\r\n|\r|\n/);
      buffer = lines.pop() + held; // the last piece is an unfinished line
      for (const line of lines) {
        if (line === "") {
          if (data.length) yield { event: type || "message", data: parse(data.join("\n")), id: lastId };
          type = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue; // a comment (keep-alive)
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let text = colon < 0 ? "" : line.slice(colon + 1);
        if (text.startsWith(" ")) text = text.slice(1);
        if (field === "event") type = text;
        else if (field === "data") data.push(text);
        else if (field === "id" && !text.includes("\0")) lastId = text;
      }
    }
  } finally {
    reader.cancel().catch(() => {}); // after a normal end this is a no-op; after an early break it closes the body
  }
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
