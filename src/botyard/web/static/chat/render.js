// How the chat page draws: answers with their sources, colours, DOM elements, error texts.

import { citationOf } from "../shared/citations.js";
import { citationMarkers, renderMarkdown, webUrl } from "../shared/markdown.js";
import { word } from "./words.js";

/** Renders `text` into `entry`, with a numbered source list when it cites sources. */
export function showAnswer(entry, text, citations, imageHosts) {
  entry.replaceChildren();
  const body = element("div", entry, "answer");
  body.append(renderMarkdown(text, { imageHosts, citations }));
  const cited = citationMarkers(text)
    .map((marker, index) => ({ number: index + 1, citation: citations.get(marker) }))
    .filter((item) => item.citation);
  if (!cited.length) return;
  const list = element("ol", entry, "sources");
  list.setAttribute("aria-label", word("sources"));
  for (const { number, citation } of cited) {
    const item = element("li", list);
    item.value = number;
    const url = webUrl(citation.url);
    const target = url ? element("a", item) : item;
    if (url) Object.assign(target, { href: url.href, target: "_blank", rel: "noopener noreferrer nofollow" });
    target.textContent = citation.title;
  }
}

/** `{marker: entry}` (the messages list's or the `end` event's) as the Map renderMarkdown takes. */
export function citationMap(entries) {
  return new Map(Object.entries(entries ?? {}).map(([marker, entry]) => [marker, citationOf(entry)]));
}

/** Black or white, whichever reads better on `hex` (WCAG relative luminance; widget.js has the same rule). */
export function readableOn(hex) {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 ? "#000000" : "#ffffff";
}

export async function errorText(response) {
  try {
    const body = await response.json();
    if (typeof body?.error === "string" && body.error) return body.error;
  } catch {
    // not JSON: the status decides
  }
  if (response.status === 429) return word("too_many");
  if (response.status === 404 || response.status === 403) return word("unavailable");
  return word("failed");
}

export function element(tag, parent, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  parent.append(node);
  return node;
}

export function finishAnswer(entry) {
  if (!entry.querySelector(".answer")?.hasChildNodes()) {
    entry.remove(); // no text: during a live chat the message went to the operator, who answers over `events`
    return;
  }
  entry.dataset.state = "done";
  entry.removeAttribute("aria-busy");
}

/** Runs `change` (and returns what it returns), then keeps the log scrolled to the end if it was there (someone
 * reading back is left alone). */
export function keepingScroll(log, change) {
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 48;
  const made = change();
  if (atEnd) log.scrollTop = log.scrollHeight;
  return made;
}

/** Grows the message box with its text. */
export function fitInput(input) {
  input.style.height = "auto";
  input.style.height = `${input.scrollHeight + input.offsetHeight - input.clientHeight}px`;
}

/** The JSON data of a server-sent event (`{}` when it is not JSON). */
export function payload(event) {
  try {
    return JSON.parse(event.data);
  } catch {
    return {};
  }
}
