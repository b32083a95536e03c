// Analytics (GET /chatbot/{uuid}/analytics): a period's figures in the owner's days (this browser's time zone):
// summary tiles, charts per day (charts.js), the most asked questions and most cited sources, and each channel's
// conversations and outcomes; all of it for every conversation or for one channel's.
import { get } from "./api.js";
import { WEB_LABEL, channelLabel, channelOptions, channelsOf } from "./channel-names.js";
import { barChart, lineChart } from "./charts.js";
import { clear, field, h, heading, headRow, notice, select, tableWrap } from "./ui.js";

const PERIODS = [
  ["7", "Last 7 days"],
  ["30", "Last 30 days"],
  ["90", "Last 90 days"],
  ["custom", "Custom"],
];
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
const pad = (n) => String(n).padStart(2, "0");
const isoDay = (date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
const percent = (ratio) => (ratio == null ? "–" : `${Math.round(ratio * 100)}%`);
const ms = (value) => (value == null ? "–" : `${value} ms`);

/** The query of a period: the last `days` days (today included), or from one day to another, in this zone. */
export function periodQuery(choice, from, to) {
  if (choice !== "custom") {
    const today = new Date();
    const start = new Date(today.getFullYear(), today.getMonth(), today.getDate() - Number(choice) + 1);
    return { start_timestamp: start.toISOString(), timezone: ZONE };
  }
  const [start, end] = [from, to].map((value) => value.split("-").map(Number));
  return {
    start_timestamp: new Date(start[0], start[1] - 1, start[2]).toISOString(),
    end_timestamp: new Date(end[0], end[1] - 1, end[2], 23, 59, 59).toISOString(),
    timezone: ZONE,
  };
}

function tile(label, value, detail = "") {
  const id = `tile-${label.toLowerCase().replace(/[^a-z]+/g, "-")}`;
  return h(
    "div",
    { class: "tile", role: "group", "aria-labelledby": id },
    h("p", { class: "tile-label", id }, label),
    h("p", { class: "tile-value" }, String(value)),
    detail ? h("p", { class: "tile-detail" }, detail) : null,
  );
}

function tiles(totals) {
  const asked = totals.messages;
  const share = (n) => (asked ? `${Math.round((n / asked) * 100)}% of the questions` : "");
  return h(
    "div",
    { class: "tiles" },
    tile("Conversations", totals.conversations),
    tile(
      "Resolution rate",
      percent(totals.resolution_rate),
      `${totals.resolved} resolved, ${totals.unresolved} unresolved`,
    ),
    tile("Questions", asked),
    tile("Answered", totals.answered, share(totals.answered)),
    tile("Refused", totals.refused, share(totals.refused)),
    tile("Hand-offs", totals.handed_off, "conversations handed to a person"),
    tile("Feedback", percent(totals.feedback_ratio), `${totals.feedback_up} up, ${totals.feedback_down} down`),
    tile("First byte (median)", ms(totals.first_byte_p50_ms), `95th percentile: ${ms(totals.first_byte_p95_ms)}`),
  );
}

function charts(days) {
  const labels = days.map((day) => day.date);
  const values = (key) => days.map((day) => day[key]);
  return h(
    "div",
    { class: "charts" },
    barChart({
      title: "Conversations and questions per day",
      labels,
      series: [
        { name: "Conversations", values: values("conversations"), className: "series-a" },
        { name: "Questions", values: values("messages"), className: "series-b" },
      ],
    }),
    barChart({
      title: "Answered and refused questions per day",
      labels,
      stacked: true,
      series: [
        { name: "Answered", values: values("answered"), className: "series-ok" },
        { name: "Refused", values: values("refused"), className: "series-bad" },
      ],
    }),
    barChart({
      title: "Resolved and unresolved conversations per day",
      labels,
      stacked: true,
      series: [
        { name: "Resolved", values: values("resolved"), className: "series-ok" },
        { name: "Unresolved", values: values("unresolved"), className: "series-bad" },
      ],
    }),
    barChart({
      title: "Hand-offs and feedback per day",
      labels,
      series: [
        { name: "Hand-offs", values: values("handed_off"), className: "series-c" },
        { name: "Feedback up", values: values("feedback_up"), className: "series-ok" },
        { name: "Feedback down", values: values("feedback_down"), className: "series-bad" },
      ],
    }),
    lineChart({
      title: "Time to the first byte of an answer per day",
      labels,
      unit: " ms",
      series: [
        { name: "Median", values: values("first_byte_p50_ms"), className: "series-a" },
        { name: "95th percentile", values: values("first_byte_p95_ms"), className: "series-bad" },
      ],
    }),
  );
}

function table(caption, columns, rows, empty) {
  if (!rows.length) return h("section", {}, h("h2", {}, caption), h("p", { class: "empty" }, empty));
  const body = rows.map((cells) =>
    h("tr", {}, h("td", { dir: "auto" }, cells[0]), h("td", { class: "num" }, String(cells[1]))),
  );
  return h(
    "section",
    {},
    h("h2", {}, caption),
    tableWrap(h("table", {}, headRow(columns), h("tbody", {}, ...body)), caption),
  );
}

/** The conversations, questions and outcomes of the web and of each channel (`by_channel`). */
function byChannel(entries) {
  const caption = "By channel";
  const name = (entry) => (entry.channel === "web" ? WEB_LABEL : channelLabel(entry));
  const columns = ["Channel", "Conversations", "Questions", "Answered", "Unsure", "No answer", "Handed to a person",
    "Resolution rate"];
  const body = entries.map((entry) =>
    h(
      "tr",
      {},
      h("th", { scope: "row", dir: "auto" }, name(entry)),
      ...[entry.conversations, entry.messages, entry.resolved, entry.unsure, entry.no_answer, entry.handed_off].map(
        (value) => h("td", { class: "num" }, String(value)),
      ),
      h("td", { class: "num" }, percent(entry.resolution_rate)),
    ),
  );
  return h(
    "section",
    {},
    h("h2", {}, caption),
    tableWrap(h("table", {}, headRow(columns), h("tbody", {}, ...body)), caption),
    h("p", { class: "hint" }, "Outcomes of the conversations started in the period, as the resolution rate counts them."),
  );
}

export async function render(ctx) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const channels = await channelsOf(bot, ctx.signal);
  const choice = select(PERIODS, "30");
  const channel = select(channelOptions(channels, "web"), "");
  const from = h("input", { type: "date", required: true });
  const to = h("input", { type: "date", required: true });
  const apply = h("button", { type: "submit", class: "primary" }, "Show");
  const custom = h("div", { class: "row", hidden: true }, field("From", from), field("To", to));
  const form = h(
    "form",
    { class: "inline-form period" },
    field("Period", choice),
    custom,
    field("Channel", channel),
    apply,
  );
  const summary = h("p", { class: "summary", "aria-live": "polite" });
  const body = h("div", { class: "analytics" });
  const today = new Date();
  to.value = isoDay(today);
  from.value = isoDay(new Date(today.getFullYear(), today.getMonth(), today.getDate() - 29));

  async function load() {
    note.clear();
    if (choice.value === "custom" && (!from.value || !to.value || from.value > to.value)) {
      note.error("Choose a first day on or before the last day.");
      return;
    }
    try {
      const query = { ...periodQuery(choice.value, from.value, to.value), channel: channel.value };
      const found = await get(`/chatbot/${bot}/analytics`, { query, signal: ctx.signal });
      const days = found.days;
      const count = days.length === 1 ? "1 day" : `${days.length} days`;
      summary.textContent = `${count}, ${days[0].date} to ${days.at(-1).date}, in ${found.timezone}.`;
      clear(
        body,
        tiles(found.totals),
        charts(days),
        table(
          "Top questions",
          ["Question", "Times asked"],
          found.top_questions.map((item) => [item.question, item.count]),
          "No questions in this period.",
        ),
        table(
          "Most cited sources",
          ["Source", "Answers citing it"],
          found.top_sources.map((item) => [item.title || item.data_source_uuid, item.count]),
          "No answer cited a source in this period.",
        ),
        byChannel(found.by_channel),
      );
    } catch (error) {
      if (error?.name !== "AbortError") note.error(error);
    }
  }

  choice.addEventListener("change", () => {
    custom.hidden = choice.value !== "custom";
    if (choice.value !== "custom") load();
  });
  channel.addEventListener("change", () => {
    if (choice.value !== "custom") load();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });

  await load();
  ctx.main.append(
    heading(`Analytics: ${ctx.chatbot.name}`),
    h("p", { class: "lead" }, `What your chatbot did, day by day (days in ${ZONE}).`),
    form,
    summary,
    note.element,
    body,
  );
}
