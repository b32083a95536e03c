// Analytics (GET /chatbot/{uuid}/analytics and .../analytics/team): a period's figures in the owner's days (this
// browser's time zone): summary tiles, a sentence whose counts add up to the conversations, charts per day
// (charts.js), the most asked questions and most cited sources, each channel's conversations and outcomes, and the
// team's figures (people's response and resolution times, per person and per channel); all of it for every
// conversation or for one channel's.
import { get } from "./api.js";
import { WEB_LABEL, channelLabel, channelOptions, channelsOf } from "./channel-names.js";
import { barChart, duration, lineChart } from "./charts.js";
import { clear, field, h, heading, headRow, notice, select, tableWrap, uid } from "./ui.js";

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
const conversations = (n) => (n === 1 ? "1 conversation" : `${n} conversations`);

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

/**
 * Where every conversation of the period went, in words whose counts add up to the total: "Bot resolved 1 of 3
 * conversations it handled alone (2 unresolved); 4 more: 3 handed to a person, 1 without a question."
 */
export function outcomeWords(totals) {
  const alone = totals.bot_conversations;
  const bot = alone
    ? `Bot resolved ${totals.resolved} of ${conversations(alone)} it handled alone (${totals.unresolved} unresolved)`
    : "The bot handled no conversation alone";
  const others = [];
  if (totals.handed_to_person) others.push(`${totals.handed_to_person} handed to a person`);
  if (totals.no_outcome) others.push(`${totals.no_outcome} without a question`);
  const more = others.length ? `; ${totals.handed_to_person + totals.no_outcome} more: ${others.join(", ")}` : "";
  return `${bot}${more}. ${conversations(totals.conversations)} in all.`;
}

/**
 * What the hand-off tile counts, and the period's hand-offs when they are not the same conversations (one that began
 * before the period and was handed to a person in it counts there, not here).
 */
function handOffs(totals) {
  const started = "of the conversations started in the period";
  if (totals.handed_off === totals.handed_to_person) return started;
  const events = totals.handed_off === 1 ? "1 hand-off" : `${totals.handed_off} hand-offs`;
  return `${started} (${events} in the period, whenever the conversation began)`;
}

function tiles(totals) {
  const asked = totals.messages;
  const share = (n) => (asked ? `${Math.round((n / asked) * 100)}% of the questions` : "");
  return h(
    "div",
    { class: "tiles" },
    tile("Conversations", totals.conversations, "started in the period"),
    tile(
      "Resolution rate",
      percent(totals.bot_resolution_rate),
      `${totals.resolved} of the ${totals.bot_conversations} the bot handled alone`,
    ),
    tile("Questions", asked),
    tile("Answered", totals.answered, share(totals.answered)),
    tile("Refused", totals.refused, share(totals.refused)),
    tile("Handed to a person", totals.handed_to_person, handOffs(totals)),
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
      title: "Conversations per day by outcome",
      labels,
      stacked: true,
      series: [
        { name: "Resolved by the bot", values: values("resolved"), className: "series-ok" },
        { name: "Unresolved", values: values("unresolved"), className: "series-bad" },
        { name: "Handed to a person", values: values("handed_to_person"), className: "series-c" },
        { name: "Without a question", values: values("no_outcome"), className: "series-none" },
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

const placeName = (entry) => (entry.channel === "web" ? WEB_LABEL : channelLabel(entry));
const cells = (...values) => values.map((value) => h("td", { class: "num" }, String(value)));

/** An unresolved count with what the bot's unsure answers and no-answer replies were of it ("2: 1 unsure"). */
function unresolvedCell(entry) {
  const parts = [];
  if (entry.unsure) parts.push(`${entry.unsure} unsure`);
  if (entry.no_answer) parts.push(`${entry.no_answer} no answer`);
  const detail = parts.length ? h("span", { class: "hint" }, ` (${parts.join(", ")})`) : null;
  return h("td", { class: "num" }, String(entry.unresolved), detail);
}

/** The conversations, questions and outcomes of the web and of each channel (`by_channel`): buckets that sum. */
function byChannel(entries) {
  const caption = "By channel";
  const columns = ["Channel", "Conversations", "Questions", "Resolved by the bot", "Unresolved", "Handed to a person",
    "Without a question", "Resolution rate"];
  const body = entries.map((entry) =>
    h(
      "tr",
      {},
      h("th", { scope: "row", dir: "auto" }, placeName(entry)),
      ...cells(entry.conversations, entry.messages, entry.resolved),
      unresolvedCell(entry),
      ...cells(entry.handed_off, entry.no_outcome, percent(entry.bot_resolution_rate)),
    ),
  );
  return h(
    "section",
    {},
    h("h2", {}, caption),
    tableWrap(h("table", {}, headRow(columns), h("tbody", {}, ...body)), caption),
    h(
      "p",
      { class: "hint" },
      "Each conversation started in the period is counted once: resolved by the bot, unresolved, handed to a person " +
        "or without a question, which add up to the conversations. The resolution rate is the resolved share of " +
        "the conversations the bot handled alone.",
    ),
  );
}

/**
 * A small table of the team's figures: the first column names the row, the others are numbers or times, each cell
 * labelled with its column (`data-label`), which a phone shows beside the value (each row a short list there).
 * `totals`: rows for the table's foot.
 */
function teamTable(caption, columns, rows, totals = []) {
  const row = ([name, ...values]) =>
    h(
      "tr",
      {},
      h("th", { scope: "row", dir: "auto" }, name),
      ...values.map((value, index) => h("td", { class: "num", "data-label": columns[index + 1] }, String(value))),
    );
  const foot = totals.length ? h("tfoot", {}, ...totals.map(row)) : null;
  const table = h("table", {}, headRow(columns), h("tbody", {}, ...rows.map(row)), foot);
  return h("section", { class: "team-table" }, h("h3", {}, caption), tableWrap(table, caption));
}

const times = (measured, what) =>
  `90th percentile: ${duration(measured.p90_seconds)}, of ${conversations(measured.count)} ${what}`;

/** The team's figures (GET .../analytics/team): times, who took the conversations, and each channel's share. */
export function teamSection(team) {
  const handed = team.handed_to_person;
  const id = uid("team");
  const title = h("h2", { id }, "The team");
  const section = (...children) => h("section", { class: "team", "aria-labelledby": id }, title, ...children);
  if (!handed) return section(h("p", { class: "empty" }, "No conversation of this period was handed to a person."));
  const [first, resolution] = [team.first_response, team.resolution];
  const words =
    `${handed} of ${conversations(team.conversations)} handed to a person: ${team.answered_by_person} answered ` +
    `by a person, ${team.resolved_by_person} resolved by a person, ${team.unassigned} assigned to nobody.`;
  const people = team.people.map((person) => [
    person.name || "(no name)",
    person.conversations,
    person.resolved,
    duration(person.first_response_median_seconds),
    duration(person.resolution_median_seconds),
  ]);
  if (team.unassigned) people.push(["Nobody", team.unassigned, "–", "–", "–"]);
  const all = ["All", handed, team.resolved_by_person, duration(first.median_seconds), duration(resolution.median_seconds)];
  const channels = team.by_channel.map((entry) => [
    placeName(entry),
    entry.conversations,
    entry.resolved_by_bot,
    entry.handed_to_person,
    entry.resolved_by_person,
    duration(entry.first_response_median_seconds),
  ]);
  return section(
    h(
      "div",
      { class: "tiles" },
      tile("First response (median)", duration(first.median_seconds), times(first, "answered")),
      tile("Resolution time (median)", duration(resolution.median_seconds), times(resolution, "resolved")),
    ),
    h("p", { class: "outcomes" }, words),
    teamTable("By person", ["Person", "Conversations", "Resolved", "First response", "Resolution"], people, [all]),
    teamTable(
      "The team by channel",
      ["Channel", "Conversations", "Resolved by the bot", "Handed to a person", "Resolved by a person", "First response"],
      channels,
    ),
    h(
      "p",
      { class: "hint" },
      "Times run from the hand-off (a person asked for, or an operator taking over) to the first operator reply " +
        "and to a person's resolve; medians of the conversations started in the period.",
    ),
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
      const [found, team] = await Promise.all([
        get(`/chatbot/${bot}/analytics`, { query, signal: ctx.signal }),
        get(`/chatbot/${bot}/analytics/team`, { query, signal: ctx.signal }),
      ]);
      const days = found.days;
      const count = days.length === 1 ? "1 day" : `${days.length} days`;
      summary.textContent = `${count}, ${days[0].date} to ${days.at(-1).date}, in ${found.timezone}.`;
      clear(
        body,
        tiles(found.totals),
        h("p", { class: "outcomes" }, outcomeWords(found.totals)),
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
        teamSection(team),
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
