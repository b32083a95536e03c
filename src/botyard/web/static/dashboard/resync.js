// "Keep fresh": a chatbot's re-sync schedule for its web pages (off, daily, weekly), its next and last runs, the
// last run's counts, and "Check now" (the page follows the run until it is recorded).
import { get, post } from "./api.js";
import { busy, clear, field, h, notice, select } from "./ui.js";

const POLL_MS = 1000;
const WAIT_RUN_MS = 10 * 60 * 1000;
const SCHEDULES = [
  ["off", "Off"],
  ["daily", "Daily"],
  ["weekly", "Weekly"],
];
const COUNTS = [
  ["checked", "Checked"],
  ["unchanged", "Unchanged"],
  ["changed", "Changed"],
  ["gone", "Gone"],
  ["failed", "Failed"],
  ["skipped", "Skipped"],
];

const when = (iso, none) => (iso ? h("time", { datetime: iso }, new Date(iso).toLocaleString()) : none);

/** The "Keep fresh" card; onChange() after a run (changed pages are re-indexed). Returns {element, stop}. */
export function keepFresh(ctx, onChange) {
  const bot = ctx.chatbot.uuid;
  const note = notice();
  const schedule = select(SCHEDULES, "off");
  const save = h("button", { type: "submit" }, "Save schedule");
  const check = h("button", { type: "button" }, "Check now");
  const next = h("dd", { class: "next-run" });
  const last = h("dd", { class: "last-run" });
  const summary = h("dd", { class: "last-summary" });
  let timer = 0;
  let stopped = false;

  function show(sync) {
    schedule.value = sync.schedule;
    clear(next, when(sync.next_run_at, "Not scheduled"));
    clear(last, when(sync.last_run_at, "Never"));
    const counts = sync.last_summary ?? {};
    summary.textContent = sync.last_run_at
      ? COUNTS.map(([key, label]) => `${label} ${counts[key] ?? 0}`).join(" · ")
      : "No run yet";
  }

  const load = () => get(`/chatbot/${bot}/sync`, { signal: ctx.signal });

  const form = h(
    "form",
    { class: "inline-form", "data-needs": "knowledge" },
    field("Schedule", schedule, "Every web page is checked with one small request; changed pages are re-indexed."),
    save,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(save, note, async () => {
      const sync = await post(`/chatbot/${bot}/sync`, { schedule: schedule.value });
      show(sync);
      const label = SCHEDULES.find(([value]) => value === sync.schedule)?.[1] ?? sync.schedule;
      note.ok(sync.schedule === "off" ? "Schedule off: pages are checked only when you ask." : `Schedule: ${label}.`);
    });
  });

  /** Follows a run started now: done when the last run time moves past `before`. */
  async function follow(before, started) {
    timer = 0;
    if (stopped) return;
    try {
      const sync = await load();
      if (stopped) return;
      if (sync.last_run_at && sync.last_run_at !== before) {
        show(sync);
        check.disabled = false;
        const n = sync.last_summary?.checked ?? 0;
        note.ok(`Check finished: ${n} page${n === 1 ? "" : "s"} checked.`);
        onChange();
        return;
      }
    } catch (error) {
      if (error.name === "AbortError") return;
      note.error(error);
    }
    if (Date.now() - started > WAIT_RUN_MS) {
      check.disabled = false;
      note.ok("The check is still running: its counts will show here when you come back.");
      return;
    }
    timer = setTimeout(() => follow(before, started), POLL_MS);
  }

  check.addEventListener("click", async () => {
    const run = await busy(check, note, async () => {
      const sync = await post(`/chatbot/${bot}/sync/run`, {});
      show(sync);
      return { before: sync.last_run_at }; // the previous run's: the new one is recorded when it ends
    });
    if (!run) return;
    check.disabled = true;
    note.ok("Checking every web page now…");
    timer = setTimeout(() => follow(run.before, Date.now()), POLL_MS);
  });

  const facts = h(
    "dl",
    { class: "facts" },
    h("dt", {}, "Next run"),
    next,
    h("dt", {}, "Last run"),
    last,
    h("dt", {}, "Last run’s pages"),
    summary,
  );
  const element = h(
    "section",
    { class: "card", "aria-labelledby": "fresh-h" },
    h("h3", { id: "fresh-h" }, "Keep fresh"),
    form,
    facts,
    h("div", { class: "actions" }, check),
    note.element,
  );
  load()
    .then((sync) => stopped || show(sync))
    .catch((error) => error.name === "AbortError" || note.error(error));
  return {
    element,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
