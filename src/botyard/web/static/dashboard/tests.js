// Test sets (docs/test-sets.md): questions with what a right answer holds, imported from CSV, run against the
// chatbot's current knowledge, with what changed since the previous run (fixed, broken, new).
import { renderMarkdown } from "/static/shared/markdown.js";
import { TestRunStatus } from "/static/shared/names.js";
import { download, get, post, upload } from "./api.js";
import { badge, busy, checkbox, clear, field, formatDate, h, headRow, heading, notice, tableWrap } from "./ui.js";

const CHANGES = { fixed: ["fixed", "ok"], broken: ["broken", "bad"], new: ["new", ""] };
const WAIT_MS = 1000;
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

function expected(result) {
  return result.expect_refuse ? "says it does not know" : result.expect_any.join(" | ");
}

function runTable(run) {
  const rows = run.results.map((result) =>
    h(
      "tr",
      { class: result.passed ? "passed" : "failed" },
      h("td", { dir: "auto" }, result.question),
      h("td", {}, badge(result.passed ? "pass" : "fail", result.passed ? "ok" : "bad")),
      h("td", {}, result.change ? badge(...CHANGES[result.change]) : ""),
      h("td", { dir: "auto" }, expected(result)),
      h("td", { class: "reply", dir: "auto" }, renderMarkdown(result.reply ?? "", { imageHosts: [] })),
    ),
  );
  const table = h(
    "table",
    { class: "test-results" },
    headRow(["Question", "Verdict", "Since the last run", "Expected", "Reply"]),
    h("tbody", {}, ...rows),
  );
  return tableWrap(table, "Results");
}

function runSummary(run) {
  const changed = [];
  if (run.fixed) changed.push(`${run.fixed} fixed`);
  if (run.broken) changed.push(`${run.broken} broken`);
  const since = changed.length ? ` Since the last run: ${changed.join(", ")}.` : "";
  return `${run.passed} of ${run.total} passed (${formatDate(run.created_at)}).${since}`;
}

function setCard(set, actions) {
  const run = h("button", { type: "button", class: "primary", onclick: () => actions.run(set, run) }, "Run");
  const csv = h("button", { type: "button", onclick: () => actions.export(set, csv) }, "Export CSV");
  const results = h("div", { class: "run" });
  actions.latest(set, results);
  return h(
    "li",
    { class: "card test-set", "data-uuid": set.uuid },
    h("h2", { dir: "auto" }, set.name),
    h(
      "p",
      { class: "sub" },
      `${set.case_count} questions${set.run_after_changes ? ", run after each knowledge change" : ""}.`,
    ),
    h("div", { class: "actions" }, run, csv),
    results,
  );
}

export async function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const list = h("ul", { class: "review-list", "aria-label": "Test sets" });
  const file = h("input", { type: "file", accept: ".csv,text/csv", required: true });
  const name = h("input", { type: "text", required: true, maxlength: "200" });
  const watch = checkbox("Run after each knowledge change");
  const add = h("button", { type: "submit", class: "primary" }, "Import");
  const form = h(
    "form",
    { class: "card", "data-needs": "knowledge" },
    h("h2", {}, "New test set"),
    field("CSV file", file, "Columns: question, expect_any (texts separated by |), expect (refuse)."),
    field("Name", name),
    watch.element,
    h("div", { class: "actions" }, add),
  );

  function show(target, run) {
    const failed = run.status === TestRunStatus.FAILED ? "The run failed." : "Running…";
    const status = run.status === TestRunStatus.DONE ? runSummary(run) : failed;
    clear(target, h("p", { class: "summary" }, status), run.status === TestRunStatus.DONE ? runTable(run) : null);
  }

  const actions = {
    async latest(set, target) {
      const [newest] = await get(`/test-set/${set.uuid}/runs`, { signal: ctx.signal });
      if (newest) show(target, await get(`/test-run/${newest.uuid}`, { signal: ctx.signal }));
    },
    run(set, button) {
      busy(button, note, async () => {
        let run = await post(`/test-set/${set.uuid}/run`, undefined, { signal: ctx.signal });
        const target = button.closest("li").querySelector(".run");
        show(target, run);
        while (![TestRunStatus.DONE, TestRunStatus.FAILED].includes(run.status) && !ctx.signal.aborted) {
          await sleep(WAIT_MS, ctx.signal);
          run = await get(`/test-run/${run.uuid}`, { signal: ctx.signal });
        }
        show(target, run);
      });
    },
    export(set, button) {
      busy(button, note, () => download(`/test-set/${set.uuid}/export`, "test-set.csv"));
    },
  };

  async function load() {
    const sets = await get(`/chatbot/${bot}/test-sets`, { signal: ctx.signal });
    clear(list, ...sets.map((set) => setCard(set, actions)));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(add, note, async () => {
      const fields = { file: file.files[0], name: name.value.trim(), run_after_changes: String(watch.input.checked) };
      const made = (await upload(`/chatbot/${bot}/test-sets/import`, fields, () => {}).promise).body;
      form.reset();
      await load();
      note.ok(`Test set “${made.name}” imported: ${made.case_count} questions.`);
    });
  });

  await load();
  ctx.main.append(
    heading(`Tests: ${ctx.chatbot.name}`),
    h(
      "p",
      { class: "lead" },
      "Questions with what a right answer holds. Run them after a change to the knowledge to see what it fixed " +
        "and what it broke.",
    ),
    note.element,
    list,
    form,
  );
}
