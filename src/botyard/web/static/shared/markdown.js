// Markdown for chatbot answers, built with DOM calls. An answer can carry text from anyone who got words into the
// knowledge base or the conversation, so it never goes through an HTML parser: each piece of it ends up in a text
// node or in an attribute whose value was checked. Only the subset answers use is understood; the rest (raw HTML
// included) stays visible as text.

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING = /^\s{0,3}(#{1,3})\s+(.*?)(?:\s+#+)?\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const MARKER = /\[(\d+\.\d+)\]/g;
// A link target may hold one level of balanced parentheses (Wikipedia-style URLs) and an optional "title".
const TARGET = String.raw`\(\s*((?:[^()\s]|\([^()\s]*\))+)(?:\s+"[^"\n]*")?\s*\)`;
const INLINE = new RegExp(
  [
    "`([^`\\n]+)`", // 1: code
    String.raw`!\[([^\]\n]*)\]` + TARGET, // 2, 3: image alt and URL
    String.raw`\[([^\]\n]+)\]` + TARGET, // 4, 5: link text and URL
    String.raw`\[(\d+\.\d+)\]`, // 6: citation marker
    String.raw`\*\*(?=\S)([\s\S]*?\S)\*\*`, // 7: strong
    String.raw`\*(?=[^\s*])([\s\S]*?[^\s*])\*`, // 8: emphasis
  ].join("|"),
  "g",
);
const LINK_REL = "noopener noreferrer nofollow";

/**
 * `text` as a DocumentFragment. Options: `imageHosts` (hosts images may load from), `citations` (a Map or object
 * from marker "X.Y" to `{url, title}`), `citationNumber(marker)` (defaults to order of first appearance).
 */
export function renderMarkdown(text, options = {}) {
  const source = String(text ?? "").replace(/\r\n?/g, "\n");
  const context = {
    imageHosts: new Set((options.imageHosts ?? []).map((host) => host.toLowerCase())),
    citation: lookup(options.citations),
    number: options.citationNumber ?? appearanceOrder(source),
  };
  const fragment = document.createDocumentFragment();
  renderBlocks(source.split("\n"), fragment, context);
  return fragment;
}

/** The citation markers of `text` ("X.Y"), each once, in order of first appearance: citation [n] is entry n-1. */
export function citationMarkers(text) {
  return [...new Set(Array.from(String(text ?? "").matchAll(MARKER), (match) => match[1]))];
}

function appearanceOrder(text) {
  const numbers = new Map(citationMarkers(text).map((marker, index) => [marker, index + 1]));
  return (marker) => numbers.get(marker);
}

function lookup(citations) {
  if (!citations) return () => undefined;
  if (citations instanceof Map) return (marker) => citations.get(marker);
  return (marker) => (Object.hasOwn(citations, marker) ? citations[marker] : undefined);
}

function renderBlocks(lines, parent, context) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    const heading = HEADING.exec(line);
    if (!line.trim()) {
      i += 1;
    } else if (fence) {
      const code = [];
      i += 1;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) code.push(lines[i++]);
      i += 1; // the closing fence (still missing while the answer streams)
      element("code", element("pre", parent)).textContent = code.join("\n");
    } else if (heading) {
      // One level below h2: the page's own h1 (the chat's title) stays the only h1.
      renderInline(heading[2], element(`h${heading[1].length + 2}`, parent), context);
      i += 1;
    } else if (ITEM.test(line)) {
      i = renderList(lines, i, parent, context);
    } else {
      const paragraph = [];
      while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) paragraph.push(lines[i++].trim());
      renderInline(paragraph.join("\n"), element("p", parent), context);
    }
  }
}

/** Whether `line` ends a paragraph: a fence, a heading, a bullet or a list numbered from 1 ("in 2024. we" is not). */
function startsBlock(line) {
  const item = ITEM.exec(line);
  return FENCE.test(line) || HEADING.test(line) || (item !== null && /^(?:[-*+]|1[.)])$/.test(item[2]));
}

/** The list starting at `lines[start]` (with nested lists for items indented 2+ more); returns the next line. */
function renderList(lines, start, parent, context) {
  const first = ITEM.exec(lines[start]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = element(ordered ? "ol" : "ul", parent);
  if (ordered && parseInt(first[2], 10) !== 1) list.start = parseInt(first[2], 10);
  let item = null;
  let pending = [];
  const flush = () => {
    if (pending.length) renderInline(pending.join("\n"), item, context);
    pending = [];
  };
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    const match = ITEM.exec(line);
    if (match && match[1].length >= indent + 2) {
      flush();
      i = renderList(lines, i, item, context);
    } else if (match && match[1].length >= indent && /\d/.test(match[2]) === ordered) {
      flush();
      item = element("li", list);
      pending = [match[3]];
      i += 1;
    } else if (match) {
      break; // an outer item, or a list of the other kind
    } else if (!line.trim()) {
      let next = i + 1;
      while (next < lines.length && !lines[next].trim()) next += 1;
      const after = next < lines.length ? ITEM.exec(lines[next]) : null;
      if (!after || after[1].length < indent) break; // the blank line ended the list
      i = next;
    } else if (/^\s/.test(line) && !FENCE.test(line)) {
      pending.push(line.trim()); // an indented line continues the item
      i += 1;
    } else {
      break;
    }
  }
  flush();
  return i;
}

function renderInline(text, parent, context, inLink = false) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    appendText(parent, text.slice(last, match.index));
    last = match.index + match[0].length;
    const [, code, alt, imageUrl, label, linkUrl, marker, strong, emphasis] = match;
    if (code !== undefined) element("code", parent).textContent = code;
    else if (imageUrl !== undefined) renderImage(alt, imageUrl, parent, context);
    else if (linkUrl !== undefined) renderLink(label, linkUrl, parent, context, inLink);
    else if (marker !== undefined) renderCitation(marker, parent, context, inLink);
    else if (strong !== undefined) renderInline(strong, element("strong", parent), context, inLink);
    else renderInline(emphasis, element("em", parent), context, inLink);
  }
  appendText(parent, text.slice(last));
}

function renderImage(alt, raw, parent, context) {
  const url = webUrl(raw);
  if (!url || !context.imageHosts.has(url.hostname)) {
    appendText(parent, alt);
    return;
  }
  const image = element("img", parent);
  image.alt = alt;
  image.loading = "lazy";
  image.referrerPolicy = "no-referrer";
  image.src = url.href;
}

function renderLink(label, raw, parent, context, inLink) {
  const url = webUrl(raw);
  if (!url || inLink) {
    renderInline(label, parent, context, inLink); // the text without the link
    return;
  }
  const link = externalLink(url, parent);
  renderInline(label, link, context, true);
}

function renderCitation(marker, parent, context, inLink) {
  const number = context.number(marker);
  if (number === undefined || number === null) {
    appendText(parent, `[${marker}]`);
    return;
  }
  const entry = context.citation(marker);
  const url = entry ? webUrl(entry.url) : null;
  const node = url && !inLink ? externalLink(url, parent) : element("span", parent);
  node.className = "citation";
  node.textContent = `[${number}]`;
  if (entry?.title) node.title = String(entry.title);
  if (url && !inLink) node.setAttribute("aria-label", `Source ${number}${entry.title ? `: ${entry.title}` : ""}`);
}

function externalLink(url, parent) {
  const link = element("a", parent);
  link.href = url.href;
  link.target = "_blank";
  link.rel = LINK_REL;
  return link;
}

/** `raw` as an absolute http(s) URL, or null: javascript:, data:, relative and malformed URLs are refused. */
export function webUrl(raw) {
  if (typeof raw !== "string") return null;
  try {
    const url = new URL(raw);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

function appendText(parent, text) {
  text.split("\n").forEach((part, index) => {
    if (index) element("br", parent);
    if (part) parent.append(document.createTextNode(part));
  });
}

function element(tag, parent) {
  const node = document.createElement(tag);
  parent.append(node);
  return node;
}
