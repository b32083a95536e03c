// Small SVG charts drawn by the dashboard itself (no library, no CDN): bars per day (side by side or stacked) and
// lines per day. Each chart is a <figure> whose SVG is an image with a title and a description for screen readers,
// every bar or point has a <title> (its day and value, shown on hover), and the same numbers are in a table under
// "Show the numbers". Colours come from the series' classes in dashboard.css (attributes only: the CSP allows no
// inline style).
import { h, headRow, uid } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";
const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 12, right: 12, bottom: 30, left: 48 };
const MAX_X_LABELS = 8;
const MAX_BAR = 40; // a bar's width at most (a short period's bars would fill the chart)
const TICK_FONT_PX = 11; // .chart .tick in dashboard.css
const TICK_GAP = 6; // between a y label's end and the plot

/** An SVG element: svg("rect", {x: 1}, child...); strings become text. */
function svg(tag, attrs = {}, ...children) {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) element.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) element.append(child);
  return element;
}

/** The smallest 1, 2 or 5 times a power of ten that is at least `value` (at least 1): the y axis's top. */
export function niceTop(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= value);
}

/** "2026-07-14" → "Jul 14" (the day as written: no time zone conversion). */
export function shortDay(day) {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, date)).toLocaleDateString("en", {
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });
}

const short = (n) => (Number.isInteger(n) ? String(n) : n.toFixed(1).replace(/\.0$/, ""));

/** A y axis value as its label says it, short enough to read at a glance: "2.5 s" for 2500 ms, "25k" for 25000. */
export function tickLabel(value, unit = "") {
  if (unit.trim() === "ms" && value >= 1000) return `${short(value / 1000)} s`;
  if (!unit && value >= 10000) return `${short(value / 1000)}k`;
  return `${short(value)}${unit}`;
}

/** Seconds as people say a wait: "45 s", "1 min 30 s", "29 min", "1 h 5 min", "2 d 3 h"; "–" for none. */
export function duration(seconds) {
  if (seconds == null) return "–";
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 600) return seconds % 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds / 60} min`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

let measuring;
/** How wide `text` is drawn as a y label (the page's font, measured on a canvas; estimated without one). */
function labelWidth(text) {
  measuring ??= document.createElement("canvas").getContext("2d");
  if (!measuring) return text.length * TICK_FONT_PX * 0.7;
  measuring.font = `${TICK_FONT_PX}px ${getComputedStyle(document.body).fontFamily || "sans-serif"}`;
  return measuring.measureText(text).width;
}

/**
 * Where a chart whose y axis goes up to `top` draws: its y labels, and the plot's left edge far enough right for the
 * widest of them to show whole (a fixed margin cut "1000 ms" to "000 ms").
 */
function frame(top, unit) {
  const ticks = [0, 0.5, 1].map((fraction) => ({ fraction, text: tickLabel(top * fraction, unit) }));
  const widest = Math.max(...ticks.map((tick) => labelWidth(tick.text)));
  const left = Math.max(PAD.left, Math.ceil(widest) + TICK_GAP + 4);
  return { ticks, left, width: WIDTH - left - PAD.right, height: HEIGHT - PAD.top - PAD.bottom };
}

/** The frame every chart shares: y grid lines with their values, every few days' labels under the x axis. */
function axes(labels, { ticks, left, width, height }) {
  const group = svg("g", { class: "axes", "aria-hidden": "true" });
  for (const { fraction, text } of ticks) {
    const y = PAD.top + height - fraction * height;
    group.append(svg("line", { x1: left, x2: left + width, y1: y, y2: y, class: "grid-line" }));
    group.append(svg("text", { x: left - TICK_GAP, y: y + 4, "text-anchor": "end", class: "tick" }, text));
  }
  const every = Math.ceil(labels.length / MAX_X_LABELS);
  const step = width / Math.max(labels.length, 1);
  labels.forEach((label, index) => {
    if ((labels.length - 1 - index) % every !== 0) return; // counted back from the last day, always labelled
    const x = left + step * (index + 0.5);
    group.append(svg("text", { x, y: HEIGHT - 10, "text-anchor": "middle", class: "tick day-label" }, shortDay(label)));
  });
  return group;
}

function legend(series) {
  return h(
    "ul",
    { class: "legend" },
    ...series.map((item) =>
      h("li", {}, h("span", { class: `swatch ${item.className}`, "aria-hidden": "true" }), item.name),
    ),
  );
}

function numbers(labels, series, unit) {
  const rows = labels.map((label, index) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, label),
      ...series.map((item) => {
        const value = item.values[index];
        return h("td", { class: "num" }, value == null ? "–" : `${value}${unit}`);
      }),
    ),
  );
  return h(
    "details",
    { class: "chart-numbers" },
    h("summary", {}, "Show the numbers"),
    h("table", {}, headRow(["Day", ...series.map((item) => item.name)]), h("tbody", {}, ...rows)),
  );
}

function figure(title, description, chart, labels, series, unit) {
  const titleId = uid("chart");
  const descId = uid("desc");
  const image = svg(
    "svg",
    { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-labelledby": `${titleId} ${descId}`, class: "chart-svg" },
    svg("title", { id: titleId }, title),
    svg("desc", { id: descId }, description),
    ...chart,
  );
  return h(
    "figure",
    { class: "chart", "aria-label": title },
    h("figcaption", {}, title),
    image,
    legend(series),
    numbers(labels, series, unit),
  );
}

const span = (labels) =>
  labels.length === 1 ? `1 day, ${labels[0]}` : `${labels.length} days from ${labels[0]} to ${labels.at(-1)}`;
const sum = (values) => values.reduce((total, value) => total + (value ?? 0), 0);

/**
 * Bars per day. `series`: [{name, values (one per label), className}]; `stacked`: one bar per day made of the
 * series, else the series side by side. `unit` follows each value ("ms").
 */
export function barChart({ title, labels, series, stacked = false, unit = "" }) {
  const heights = stacked
    ? labels.map((_, i) => sum(series.map((item) => item.values[i])))
    : series.flatMap((item) => item.values);
  const top = niceTop(Math.max(0, ...heights));
  const layout = frame(top, unit);
  const { left, width, height } = layout;
  const step = width / Math.max(labels.length, 1);
  const perDay = stacked ? 1 : series.length;
  const groupWidth = Math.min(step * 0.8, MAX_BAR * perDay);
  const barWidth = Math.max(1, groupWidth / perDay);
  const bars = svg("g", { class: "bars" });
  labels.forEach((label, index) => {
    let base = 0;
    series.forEach((item, position) => {
      const value = item.values[index] ?? 0;
      const tall = (value / top) * height;
      const x = left + step * index + (step - groupWidth) / 2 + (stacked ? 0 : position * barWidth);
      const y = PAD.top + height - tall - (stacked ? (base / top) * height : 0);
      if (stacked) base += value;
      const text = `${shortDay(label)}: ${value}${unit} ${item.name.toLowerCase()}`;
      const bar = svg("rect", { x, y, width: barWidth, height: tall, class: `bar ${item.className}` });
      bars.append(bar);
      bar.append(svg("title", {}, text));
    });
  });
  const totals = series.map((item) => `${item.name}: ${sum(item.values)}${unit}`).join(", ");
  const description = `${span(labels)}. In all: ${totals}.`;
  return figure(title, description, [axes(labels, layout), bars], labels, series, unit);
}

/** Lines per day (a day without a value leaves a gap); same arguments as `barChart`. */
export function lineChart({ title, labels, series, unit = "" }) {
  const top = niceTop(Math.max(0, ...series.flatMap((item) => item.values.filter((value) => value != null))));
  const layout = frame(top, unit);
  const { left, width, height } = layout;
  const step = width / Math.max(labels.length, 1);
  const at = (index, value) => [left + step * (index + 0.5), PAD.top + height - (value / top) * height];
  const lines = svg("g", { class: "lines" });
  const dots = svg("g", { class: "points" }); // drawn over the lines
  for (const item of series) {
    let points = [];
    const flush = () => {
      if (points.length > 1) {
        lines.append(svg("polyline", { points: points.join(" "), class: `line ${item.className}` }));
      }
      points = [];
    };
    item.values.forEach((value, index) => {
      if (value == null) return flush();
      const [x, y] = at(index, value);
      points.push(`${x},${y}`);
      const text = `${shortDay(labels[index])}: ${value}${unit} ${item.name.toLowerCase()}`;
      dots.append(svg("circle", { cx: x, cy: y, r: 3, class: `point ${item.className}` }, svg("title", {}, text)));
    });
    flush();
  }
  const measured = series[0]?.values.filter((value) => value != null).length ?? 0;
  const description = `${span(labels)}; ${measured} with a value.`;
  return figure(title, description, [axes(labels, layout), lines, dots], labels, series, unit);
}
