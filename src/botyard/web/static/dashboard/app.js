// The dashboard shell: layout, hash router, sign-in state. Pages are ES modules loaded on first visit; each exports
// render(ctx) and may return a cleanup function (called when the owner leaves the page).
import { Permission } from "/static/shared/names.js";
import { get, getKey, post, signOut, whoAmI } from "./api.js";
import { describeService, forgetServiceInfo, serviceDetails, serviceInfo } from "./service.js";
import { closeMenus, disclosure } from "./menu.js";
import { clear, h, heading, select, uid } from "./ui.js";
import { waitingWatch } from "./waiting.js";

const ID = "([0-9a-f]{32})";
const route = (path, module, nav, title) => ({ pattern: new RegExp(`^${path}$`), module, nav, title });
const ROUTES = [
  route("/signin", "./signin.js", "", "Sign in"),
  route("/setup", "./setup.js", "", "Create your account"),
  route("/invite", "./invite.js", "", "Join the team"),
  route("/reset", "./reset.js", "", "Choose a new password"),
  route("/members", "./members.js", "members", "Members"),
  route("/keys", "./keys.js", "keys", "API keys"),
  route("/audit", "./audit.js", "audit", "Audit log"),
  route("/settings", "./settings.js", "settings", "Settings"),
  route("/chatbots", "./chatbots.js", "chatbots", "Chatbots"),
  route("/contacts(?:/[0-9a-f]{32})?", "./contacts.js", "contacts", "Contacts"), // the page reads the contact itself
  route(`/chatbot/${ID}(?:/([a-z]+))?`, "./chatbot-settings.js", "chatbots", "Chatbot settings"),
  route(`/bot/${ID}/knowledge`, "./knowledge.js", "knowledge", "Knowledge"),
  route(`/bot/${ID}/agents`, "./agents.js", "agents", "Agents"),
  route(`/bot/${ID}/agents/${ID}`, "./agent-edit.js", "agents", "Agent"),
  route(`/bot/${ID}/conversations(?:/${ID})?`, "./conversations.js", "conversations", "Conversations"),
  route(`/bot/${ID}/inbox(?:/${ID})?`, "./inbox.js", "inbox", "Inbox"),
  route(`/bot/${ID}/channels`, "./channels.js", "channels", "Channels"),
  route(`/bot/${ID}/playground`, "./playground.js", "playground", "Playground"),
  route(`/bot/${ID}/hit-testing`, "./hit-testing.js", "hit-testing", "Hit testing"),
  route(`/bot/${ID}/(?:review|unanswered)`, "./review.js", "review", "Review"),
  route(`/bot/${ID}/tests`, "./tests.js", "tests", "Tests"),
  route(`/bot/${ID}/analytics`, "./analytics.js", "analytics", "Analytics"),
];
// A chatbot's pages; those marked `true` are links of the header's line, the others are in its "More" menu (at 1280 px
// the header holds one line: brand, these few links, the menus, the chatbot switcher, presence).
const BOT_PAGES = [
  ["inbox", "Inbox", true],
  ["knowledge", "Knowledge", true],
  ["review", "Review", true], // two clicks from any page to a thumbs-down to fix (tests/browser/unanswered)
  ["analytics", "Analytics", true],
  ["conversations", "Conversations"],
  ["agents", "Agents"],
  ["channels", "Channels"],
  ["playground", "Playground"],
  ["hit-testing", "Hit testing"],
  ["tests", "Tests"],
];
const CURRENT = "botyard.chatbot";
const OPEN = new Set(["./signin.js", "./setup.js", "./invite.js", "./reset.js"]);
const LINKS = { setup: "/setup", invite: "/invite", reset: "/reset" };
const PERMISSIONS = Object.values(Permission);

// me: who is signed in (GET /auth/me), null until asked, false when nobody is.
const state = { view: null, chatbots: null, flash: "", ssoRefusal: "", cleanup: null, controller: null, token: 0, first: true, me: null, links: {} };
const main = document.getElementById("main");
const navList = h("ul", { class: "nav-links" });
const moreList = h("ul", { class: "menu-list" });
// The caret is drawn, not read: a button's name is its word.
const caret = () => h("span", { class: "caret", "aria-hidden": "true" }, "▾");
const moreButton = h("button", { type: "button", class: "quiet menu-button" }, "More", caret());
const more = h("div", { class: "menu more" }, moreButton, moreList);
const switchSelect = select([], undefined, { id: uid("bot") });
const switcher = h("div", { class: "switcher" }, h("label", { for: switchSelect.id }, "Chatbot"), switchSelect);
const signOutButton = h("button", { type: "button", class: "quiet", onclick: () => signOut() }, "Sign out");
const everywhereButton = h(
  "button",
  { type: "button", class: "quiet", onclick: () => signOut("", { everywhere: true }) },
  "Sign out everywhere",
);
const who = h("p", { class: "service-info", "aria-label": "Signed in as" });
// A person who takes conversations says whether they are there: when everyone is away, visitors who ask for a
// person are offered the contact form instead of a wait.
const presence = h("button", { type: "button", class: "quiet presence", onclick: () => toggleAway() });
const service = h("p", { class: "service-info", "aria-label": "Service" });
const inboxBadge = h("span", { class: "unread" });
const accountName = h("span", { class: "account-name" }, "Account");
const accountButton = h("button", { type: "button", class: "quiet menu-button" }, accountName, caret());
const accountPanel = h("div", { class: "menu-list" }, who, service, signOutButton, everywhereButton);
const account = h("div", { class: "menu account" }, accountButton, accountPanel);
const menuButton = h("button", { type: "button", class: "menu-button menu-toggle" }, "Menu", caret());
const panel = h("div", { class: "header-panel" });
const unread = { chatbot: null, count: 0 };
const waiting = waitingWatch();

/** The Inbox link's badge: the unread messages of the current chatbot's inbox. */
function showUnread(chatbot, count) {
  Object.assign(unread, { chatbot, count });
  inboxBadge.hidden = !count || chatbot !== currentChatbot()?.uuid;
  inboxBadge.textContent = String(count);
  inboxBadge.setAttribute("aria-label", `${count} unread`);
  // On a phone the Inbox link is in the Menu's list: its button shows a dot while the badge has a count.
  menuButton.dataset.unread = String(!inboxBadge.hidden);
  menuButton.title = inboxBadge.hidden ? "" : `Inbox: ${count} unread`;
}

async function readUnread(chatbot, signal) {
  try {
    showUnread(chatbot, (await get(`/chatbot/${chatbot}/inbox`, { signal })).unread);
  } catch {
    // the badge is a hint: the inbox page itself says what failed
  }
}

window.addEventListener("botyard:service-changed", () => {
  forgetServiceInfo();
  showService();
});

async function showService() {
  try {
    const info = await serviceInfo();
    service.textContent = describeService(info);
    service.title = serviceDetails(info);
    service.dataset.answerer = info.answerer;
  } catch {
    service.textContent = "";
  }
}

function layout() {
  const skip = h("a", { class: "skip-link", href: "#main" }, "Skip to content");
  skip.addEventListener("click", (event) => {
    event.preventDefault();
    main.focus();
  });
  const header = document.getElementById("top");
  // On a phone the panel is the Menu button's list; from 641 px it is the rest of the header's one line.
  clear(panel, h("nav", { "aria-label": "Main" }, navList, more), switcher, presence, account);
  clear(header, skip, h("a", { class: "brand", href: "#/chatbots" }, "Botyard"), waiting.element, menuButton, panel);
  disclosure(menuButton, panel, header);
  disclosure(moreButton, moreList, more);
  disclosure(accountButton, accountPanel, account);
  switchSelect.addEventListener("change", () => {
    sessionStorage.setItem(CURRENT, switchSelect.value);
    const section = location.hash.match(/^#\/chatbot\/[0-9a-f]{32}(\/[a-z]+)?$/);
    if (section) return go(`#/chatbot/${switchSelect.value}${section[1] ?? ""}`); // the same section of the other
    const current = location.hash.match(/^#\/bot\/[0-9a-f]{32}\/([a-z-]+)/);
    go(current ? `#/bot/${switchSelect.value}/${current[1]}` : "#/chatbots");
  });
}

export function currentChatbot() {
  const remembered = sessionStorage.getItem(CURRENT);
  const list = state.chatbots ?? [];
  return list.find((bot) => bot.uuid === remembered) ?? list[0] ?? null;
}

/** Whether the signed-in person (or key) may do what `permission` covers (the server decides; this hides controls). */
export function can(permission) {
  return Boolean(state.me?.permissions?.includes(permission));
}

function showWho() {
  const me = state.me || null;
  const person = me?.user;
  who.hidden = !me;
  everywhereButton.hidden = !person || Boolean(getKey());
  who.textContent = person ? `${person.name} · ${me.role}` : me ? `API key · ${me.role}` : "";
  who.title = person ? person.email : "";
  account.hidden = menuButton.hidden = !me;
  accountName.textContent = person ? person.name : "API key";
  accountButton.title = who.textContent;
  presence.hidden = !person || !can(Permission.LIVE);
  const away = Boolean(person?.away);
  presence.textContent = away ? "Away" : "Available";
  presence.dataset.away = String(away);
  presence.setAttribute("aria-pressed", String(away));
  presence.title = away
    ? "You are away. Click when you are back to take conversations."
    : "You take conversations. Click when you step away: if everyone is away, visitors get the contact form.";
  // Controls a role may not use are marked data-needs="<permission>" and hidden by the stylesheet.
  document.body.dataset.cannot = me ? PERMISSIONS.filter((item) => !can(item)).join(" ") : "";
}

async function toggleAway() {
  const away = presence.dataset.away !== "true";
  presence.disabled = true;
  try {
    state.me = await post("/auth/availability", { away });
    showWho();
  } catch (error) {
    presence.title = `Could not change it: ${error.message}`;
  } finally {
    presence.disabled = false;
  }
}

function renderNav(active, botUuid) {
  const signedIn = Boolean(state.me);
  clear(navList);
  clear(moreList);
  more.hidden = true;
  switcher.hidden = !signedIn || !(state.chatbots ?? []).length;
  signOutButton.hidden = service.hidden = !signedIn;
  showWho();
  if (!signedIn) return;
  if (botUuid) sessionStorage.setItem(CURRENT, botUuid);
  const bot = currentChatbot();
  const link = (href, text, key) =>
    h("li", {}, h("a", { href, "aria-current": key === active ? "page" : undefined }, text));
  const further = [];
  if (bot) {
    const pages = BOT_PAGES.map(([key, text, main]) => [link(`#/bot/${bot.uuid}/${key}`, text, key), main]);
    navList.append(pages[0][0], link("#/chatbots", "Chatbots", "chatbots"));
    for (const [item, main] of pages.slice(1)) (main ? navList : moreList).append(item); // see BOT_PAGES
    further.push(...pages.filter(([, main]) => !main).map(([item]) => item));
    navList.querySelector(`a[href="#/bot/${bot.uuid}/inbox"]`).append(inboxBadge);
    showUnread(unread.chatbot, unread.count);
    const options = state.chatbots.map((item) => h("option", { value: item.uuid, title: item.name }, item.name));
    clear(switchSelect, ...options);
    switchSelect.value = bot.uuid;
    switchSelect.title = bot.name; // the whole name, where the header is too narrow for it
  } else navList.append(link("#/chatbots", "Chatbots", "chatbots"));
  // The account's people, whichever chatbot they wrote to: in More, as the header's line keeps its room for a long
  // chatbot name in the switcher (the Inbox's context pane links each conversation's contact).
  further.push(link("#/contacts", "Contacts", "contacts"));
  if (can(Permission.ACCESS)) {
    further.push(
      link("#/members", "Members", "members"),
      link("#/keys", "API keys", "keys"),
      link("#/audit", "Audit log", "audit"),
    );
  }
  if (can(Permission.SETTINGS)) further.push(link("#/settings", "Settings", "settings"));
  clear(moreList, ...further);
  more.hidden = !further.length;
  // The More button says when the page shown is one of its links (they are out of sight until it opens).
  moreButton.classList.toggle("current", Boolean(moreList.querySelector("[aria-current]")));
}

export async function refreshChatbots(signal) {
  state.chatbots = await get("/chatbots", { signal });
  return state.chatbots;
}

function resolve(path) {
  for (const candidate of ROUTES) {
    const match = path.match(candidate.pattern);
    if (match) return { ...candidate, params: match.slice(1).filter(Boolean) };
  }
  return null;
}

async function show() {
  closeOverlays();
  if (stays()) return;
  state.view = null;
  const token = ++state.token;
  state.controller?.abort();
  if (typeof state.cleanup === "function") state.cleanup();
  state.cleanup = null;
  const controller = new AbortController();
  state.controller = controller;

  const link = location.hash.match(/^#(setup|invite|reset)=([A-Za-z0-9_-]+)$/);
  if (link) {
    state.links[link[1]] = link[2];
    history.replaceState(null, "", `#${LINKS[link[1]]}`); // the one-time token leaves the address bar and the history
  }
  const sso = location.hash.match(/^#sso=([a-z_]+)$/);
  if (sso) {
    state.ssoRefusal = sso[1]; // why a single sign-on came back refused: the sign-in page says it once
    history.replaceState(null, "", "#/signin");
  }
  const path = location.hash.replace(/^#/, "") || "/";
  const target = resolve(path);
  const open = OPEN.has(target?.module);
  const unknown = state.me === null || (!state.me && getKey()); // a key put in the tab since: ask who it is
  if (unknown && !(open && target.module !== "./signin.js")) {
    state.me = (await whoAmI()) ?? false;
    if (!state.me && getKey()) return signOut("Your API key was not accepted. Please sign in again.");
  }
  if (token !== state.token) return;
  const signedIn = Boolean(state.me);
  if (!signedIn && !open) return go("#/signin");
  if (signedIn && (!target || target.module === "./signin.js")) return go("#/chatbots");

  try {
    if (signedIn && state.chatbots === null) await refreshChatbots(controller.signal);
    const botUuid = target.module === "./chatbots.js" || open ? null : target.params[0];
    let chatbot = null;
    if (botUuid) {
      chatbot = state.chatbots.find((bot) => bot.uuid === botUuid);
      if (!chatbot) chatbot = (await refreshChatbots(controller.signal)).find((bot) => bot.uuid === botUuid);
    }
    if (token !== state.token) return;
    renderNav(target.nav, chatbot?.uuid);
    if (signedIn) showService();
    const current = currentChatbot();
    if (signedIn && current && target.nav !== "inbox") readUnread(current.uuid, controller.signal);
    if (botUuid && !chatbot) {
      clear(main, heading("Chatbot not found"), h("p", {}, h("a", { href: "#/chatbots" }, "Back to the chatbots")));
      return;
    }
    const page = await import(target.module);
    if (token !== state.token) return;
    clear(main);
    const view = { module: target.module, params: target.params, onRoute: null };
    state.view = view;
    document.title = `${chatbot ? `${target.title} · ${chatbot.name}` : target.title} · Botyard`;
    const ctx = {
      main,
      params: target.params,
      chatbot,
      chatbots: state.chatbots,
      signal: controller.signal,
      flash: takeFlash(),
      ssoRefusal: takeSsoRefusal(),
      setupToken: state.links.setup,
      inviteToken: state.links.invite,
      resetToken: state.links.reset,
      me: state.me,
      can,
      go,
      onRoute: (handle) => {
        view.onRoute = handle; // called instead of a new render when only the route's later parts change
      },
      refreshChatbots: async () => {
        await refreshChatbots();
        renderNav(target.nav, chatbot?.uuid);
        return state.chatbots;
      },
      signedIn: () => {
        state.chatbots = null;
        state.me = null;
        go("#/chatbots");
      },
    };
    const cleanup = await page.render(ctx);
    if (token !== state.token) {
      if (typeof cleanup === "function") cleanup();
      return;
    }
    state.cleanup = cleanup;
    // After a navigation, focus goes to the new page's heading, unless the page put it somewhere already.
    if (!state.first && !main.contains(document.activeElement)) main.querySelector("h1")?.focus();
    state.first = false;
  } catch (error) {
    if (error?.name === "AbortError" || token !== state.token) return;
    clear(main, heading("Something went wrong"), h("p", { role: "alert", class: "alert" }, error.message));
  }
}

/** Whether the new address is another section of the page shown (its route and object unchanged) and the page took
 * it in itself (ctx.onRoute): then the page stays, with what was typed in its other sections. */
function stays() {
  const target = resolve(location.hash.replace(/^#/, "") || "/");
  const view = state.view;
  if (!view?.onRoute || target?.module !== view.module || target.params[0] !== view.params[0]) return false;
  view.params = target.params;
  view.onRoute(target.params);
  return true;
}

/** A navigation (a link, Back, the switcher) closes what lay over the page: menus and every open dialog (a source's
 * panel, a confirmation, which then answers "no"), so nothing from the page left blocks the next one. */
function closeOverlays() {
  closeMenus();
  for (const dialog of document.querySelectorAll("dialog[open]")) dialog.close();
}

function takeSsoRefusal() {
  const refusal = state.ssoRefusal;
  state.ssoRefusal = "";
  return refusal;
}

function takeFlash() {
  const flash = state.flash;
  state.flash = "";
  return flash;
}

export function go(hash) {
  if (location.hash === hash) show();
  else location.hash = hash;
}

window.addEventListener("botyard:signed-out", (event) => {
  state.chatbots = null;
  state.me = false;
  state.flash = event.detail?.reason ?? "";
  go("#/signin");
});
window.addEventListener("hashchange", show);
window.addEventListener("botyard:inbox-unread", (event) => showUnread(event.detail.chatbot, event.detail.unread));
layout();
show();
waiting.start();
