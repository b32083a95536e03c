// A citation as every page shows it: where it links to and what it is called. The server applies the same rule
// (botyard.chat.wire.citation_link) to the citations of the widget's messages API, which arrive with `url` set, and
// to a stored message's citations: its `cite_data_json` entries carry only the five keys the official SDK accepts,
// so their links come in `meta_json.citation_links` (`{marker: url}`; pass it as `links`). The SSE `citation` and
// `end` events carry the source's `reference_source_link` or, for a web page, its address in `file_name`.

import { webUrl } from "./markdown.js";
import { SourceType } from "./names.js";

/** `{url, title}` of a citation entry: its `url` (or `link`, from a message's `citation_links`), else the
 * source's reference link, else a web page's own address; only http(s) links, else none. */
export function citationOf(entry, fallbackTitle = "Source", link = null) {
  const given =
    entry?.url ?? link ?? entry?.reference_source_link ?? (entry?.type === SourceType.LINK ? entry?.file_name : null);
  const url = webUrl(given);
  return { url: url ? url.href : null, title: entry?.title || entry?.file_name || fallbackTitle };
}
