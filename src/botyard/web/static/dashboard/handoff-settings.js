// A chatbot's hand-off: who is emailed when a visitor asks for a person (and whether this service sends mail at
// all), and the office hours outside of which the visitor gets a form instead of a promise.
import { get, post } from "./api.js";
import { busy, checkbox, field, h, notice } from "./ui.js";

const DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const title = (day) => day[0].toUpperCase() + day.slice(1);

/** "09:00-12:00, 14:00-18:00" to [{start, end}, ...]; the server checks the times. */
function parseIntervals(text) {
  return text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [start = "", end = ""] = part.split("-").map((time) => time.trim());
      return { start, end };
    });
}

const showIntervals = (intervals) => intervals.map(({ start, end }) => `${start}-${end}`).join(", ");

function notificationsForm(bot, signal) {
  const note = notice();
  const status = h("p", { class: "hint", "aria-live": "polite" });
  const emails = h("textarea", { rows: "3", placeholder: "ops@example.com" });
  const save = h("button", { type: "submit", "data-needs": "manage" }, "Save addresses");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "notify-h" },
    h("h2", { id: "notify-h" }, "Email when a visitor asks for a person"),
    status,
    field("Operators' email addresses", emails, "One per line; also told of messages left after hours."),
    save,
    note.element,
  );
  const show = (found) => {
    emails.value = found.emails.join("\n");
    status.textContent = found.mail_status;
    status.dataset.configured = String(found.mail_configured);
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(save, note, async () => {
      const list = emails.value.split(/[\n,]/).map((line) => line.trim()).filter(Boolean);
      show(await post(`/chatbot/${bot}/notifications`, { emails: list }));
      note.ok(list.length ? "Addresses saved." : "Nobody will be emailed.");
    });
  });
  get(`/chatbot/${bot}/notifications`, { signal }).then(show, (error) => {
    if (error.name !== "AbortError") note.error(error);
  });
  return form;
}

function officeHoursForm(bot, signal) {
  const note = notice();
  const enabled = checkbox("Use office hours (off: a person is always promised)");
  const timezone = h("input", { type: "text", maxlength: "64", placeholder: "Europe/Paris", required: true });
  const days = Object.fromEntries(DAYS.map((day) => [day, h("input", { type: "text", placeholder: "closed" })]));
  const message = h("textarea", { rows: "2", maxlength: "2000" });
  const state = h("p", { class: "hint", "aria-live": "polite" });
  const save = h("button", { type: "submit", "data-needs": "manage" }, "Save office hours");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "hours-h" },
    h("h2", { id: "hours-h" }, "Office hours"),
    state,
    enabled.element,
    field("Time zone", timezone, "An IANA name: Europe/Paris, America/New_York, UTC."),
    h(
      "fieldset",
      {},
      h("legend", {}, "Open (local time, e.g. 09:00-12:00, 14:00-18:00; empty: closed)"),
      ...DAYS.map((day) => field(title(day), days[day])),
    ),
    field("After-hours reply", message, "What a visitor asking for a person is told; a form follows it."),
    save,
    note.element,
  );
  const show = (hours) => {
    enabled.input.checked = hours.enabled;
    timezone.value = hours.timezone;
    for (const day of DAYS) days[day].value = showIntervals(hours.week[day] ?? []);
    message.value = hours.after_hours_message;
    state.textContent = hours.open_now ? "Open now: a person is promised." : "Closed now: visitors get the form.";
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(save, note, async () => {
      const week = Object.fromEntries(DAYS.map((day) => [day, parseIntervals(days[day].value)]));
      const body = { enabled: enabled.input.checked, timezone: timezone.value.trim(), week };
      body.after_hours_message = message.value.trim();
      show(await post(`/chatbot/${bot}/office-hours`, body));
      note.ok("Office hours saved.");
    });
  });
  get(`/chatbot/${bot}/office-hours`, { signal }).then(show, (error) => {
    if (error.name !== "AbortError") note.error(error);
  });
  return form;
}

function requestsForm(bot, signal) {
  const note = notice();
  const on = checkbox("Hand a visitor who asks for a person to your team, without a human-escalation agent");
  const state = h("p", { class: "hint", "aria-live": "polite" });
  const save = h("button", { type: "submit", "data-needs": "manage" }, "Save");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "requests-h" },
    h("h2", { id: "requests-h" }, "When a visitor asks for a person"),
    state,
    on.element,
    save,
    note.element,
  );
  const show = (hours) => {
    on.input.checked = hours.hand_off_requests;
    state.textContent = hours.hand_off_requests
      ? "On: \u201cCan I speak to a real person?\u201d goes to the people of your account who take conversations " +
        "(the inbox); when none of them is there, the visitor gets the after-hours reply and the contact form. " +
        "A human-escalation agent of yours replaces this."
      : "Off: only a human-escalation agent hands a visitor to a person.";
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(save, note, async () => {
      show(await post(`/chatbot/${bot}/office-hours`, { hand_off_requests: on.input.checked }));
      note.ok("Saved.");
    });
  });
  get(`/chatbot/${bot}/office-hours`, { signal }).then(show, (error) => {
    if (error.name !== "AbortError") note.error(error);
  });
  return form;
}

/** The chatbot settings page's hand-off section. */
export function handoffSection(ctx) {
  return h(
    "section",
    { "aria-label": "Hand-off to a person" },
    requestsForm(ctx.chatbot.uuid, ctx.signal),
    notificationsForm(ctx.chatbot.uuid, ctx.signal),
    officeHoursForm(ctx.chatbot.uuid, ctx.signal),
  );
}
