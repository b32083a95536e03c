// Hit testing: what retrieval finds for a query (POST /chatbot/{uuid}/retrieve): chunks, sources and scores.
import { get, post } from "./api.js";
import { busy, clear, field, h, headRow, heading, notice, select, tableWrap } from "./ui.js";

const fixed = (value) => (typeof value === "number" ? value.toFixed(3) : "");
const perMethod = (scores) =>
  Object.entries(scores ?? {}).map(([name, value]) => h("div", {}, `${name}: ${fixed(value)}`));
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

export async function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const agents = await get(`/chatbot/${bot}/agents`, { signal: ctx.signal });
  const query = h("input", {
    type: "search",
    required: true,
    maxlength: "4000",
    placeholder: "How do I reset it?",
    dir: "auto",
  });
  const topK = h("input", { type: "number", min: 1, max: 50, step: 1, value: 8 });
  const methods = [
    ["hybrid", "Hybrid (what answers use)"],
    ["bm25", "BM25 (keywords)"],
    ["dense", "Dense (embeddings)"],
  ];
  const method = select(methods, "hybrid");
  const scopes = agents.map((agent) => [agent.uuid, `Sources of ${agent.name}`]);
  const scope = select([["", "All the chatbot's sources"], ...scopes], "");
  const search = h("button", { type: "submit", class: "primary" }, "Search");
  const form = h(
    "form",
    { class: "card" },
    field("Query", query),
    h("div", { class: "row" }, field("Results", topK), field("Method", method), field("Search in", scope)),
    search,
  );
  const results = h("section", { "aria-labelledby": "results-h" });

  function show(found) {
    const rows = found.chunks.map((chunk, index) =>
      h(
        "tr",
        {},
        h("td", { class: "num" }, String(index + 1)),
        h("td", { class: "num score" }, fixed(chunk.score)),
        h(
          "th",
          { scope: "row" },
          chunk.title || chunk.data_source_uuid,
          chunk.heading ? h("span", { class: "sub" }, chunk.heading) : null,
        ),
        h("td", {}, h("div", { class: "chunk-text", dir: "auto" }, chunk.text)),
        h("td", {}, perMethod(chunk.scores)),
      ),
    );
    note.ok(`${plural(found.chunks.length, "chunk")} ranked by ${found.method}.`);
    // The decision answering makes, with its own score and reason; a refusal is not shown as a success.
    const decision = h(
      "p",
      { class: `decision ${found.decision.relevant ? "answers" : "declines"}` },
      h("strong", {}, found.decision.relevant ? "Would answer. " : "Would decline without a language model. "),
      found.decision.explanation,
    );
    const table = h(
      "table",
      { class: "hits" },
      h("caption", {}, `Chunks for “${query.value.trim()}”`),
      headRow(["#", "Score", "Source", "Chunk", "Per method"]),
      h("tbody", {}, ...rows),
    );
    const none = h("p", { class: "empty" }, "No chunks found.");
    const shown = found.chunks.length ? tableWrap(table, "Retrieved chunks") : none;
    clear(results, h("h2", { id: "results-h" }, "Results"), decision, shown);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(search, note, async () => {
      const body = { query: query.value.trim(), top_k: Number(topK.value) || 8, method: method.value };
      if (scope.value) body.agent_uuid = scope.value;
      show(await post(`/chatbot/${bot}/retrieve`, body, { signal: ctx.signal }));
    });
  });

  ctx.main.append(
    heading(`Hit testing: ${ctx.chatbot.name}`),
    h("p", { class: "lead" }, "See which chunks of your knowledge a question finds, and how they score."),
    form,
    note.element,
    results,
  );
}
