// A citation as every page shows it: where it links to and what it is called. The server applies the same rule
// (botyard.answering.citations.citation_link) to the citations of the widget's messages API, which arrive with
// `url` set; stored entries (cite_data_json, the SSE `citation` and `end` events) carry the source's
// `reference_source_link` or, for a web page, its address in `file_name`.

import { webUrl } from "./markdown.js";

/** `{url, title}` of a citation entry: its `url`, else the source's reference link, else a web page's own
 * address; only http(s) links, else none. */
export function citationOf(entry, fallbackTitle = "Source") {
  const link = entry?.url ?? entry?.reference_source_link ?? (entry?.type === "link" ? entry?.file_name : null);
  const url = webUrl(link);
  return { url: url ? url.href : null, title: entry?.title || entry?.file_name || fallbackTitle };
}
