// Botyard chat widget: the one-line embed
//   <script src="https://botyard.example/widget.js" data-chatbot="CHATBOT_UUID" async></script>
// A site that knows who is signed in tells it with `data-contact-name` and `data-contact-email` on that line, or with
// `window.BotyardContact = {name, email, attributes}` set before it (docs/contacts.md).
// A chat bubble in the page's corner opening a panel that frames {origin}/chat/{uuid}. Everything lives in a
// shadow root, so the host page's CSS cannot restyle it and ours cannot leak out. A classic script (not a module)
// so that the embed line works on any page; no key is ever involved: the chatbot's uuid is all it knows.
(() => {
  "use strict";

  const script = document.currentScript;
  if (!script || document.getElementById("botyard-widget")) return; // an embed line pasted twice shows one widget
  const uuid = script.dataset.chatbot || "";
  const origin = new URL(script.src).origin;
  const HEX = /^#[0-9a-f]{6}$/i;
  // Browsers block or partition the storage of a framed third party, so this page keeps the chat's device id and
  // session for it, in its own (first-party) storage: handed to the frame in its URL's fragment (which is never sent
  // to a server) and updated by the frame's "botyard:store" messages.
  const KEYS = ["botyard:device", `botyard:session:${uuid}`];

  const STYLE = `
    :host { all: initial; }
    .bubble {
      position: fixed; right: 20px; bottom: 20px; z-index: 2147483000;
      width: 56px; height: 56px; border: 0; border-radius: 50%; padding: 0; cursor: pointer;
      display: grid; place-items: center;
      background: var(--primary); color: var(--on-primary);
      box-shadow: 0 4px 14px rgb(0 0 0 / 0.25);
    }
    .bubble:focus-visible { outline: 3px solid var(--primary); outline-offset: 3px; }
    .bubble svg { width: 28px; height: 28px; fill: currentColor; }
    .bubble .close, .open .bubble .chat { display: none; }
    .open .bubble .close { display: block; }
    .panel {
      position: fixed; right: 20px; bottom: 88px; z-index: 2147483000;
      width: 380px; height: min(640px, calc(100vh - 110px));
      border-radius: 14px; overflow: hidden; background: var(--background);
      box-shadow: 0 10px 40px rgb(0 0 0 / 0.3);
    }
    .panel[hidden] { display: none; }
    iframe { display: block; width: 100%; height: 100%; border: 0; }
    /* Phones: the panel takes the whole screen; the chat page's own close button replaces the bubble. */
    @media (max-width: 479.98px) {
      .panel { inset: 0; width: 100%; height: 100%; border-radius: 0; }
      .open .bubble { display: none; }
    }
  `;
  // Material-style "chat" and "close" glyphs (24x24 viewBox).
  const ICONS = {
    chat: "M20 2H4a2 2 0 0 0-2 2v18l4-4h14a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2zM6 9h12v2H6V9zm8 5H6v-2h8v2zm4-6H6V6h12v2z",
    close: "M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z",
  };

  fetch(`${origin}/api/v1/widget/${encodeURIComponent(uuid)}`, { credentials: "omit" })
    .then((response) => {
      if (!response.ok) throw new Error(`the chatbot's widget answered ${response.status}`);
      return response.json();
    })
    .then(mount)
    .catch((error) => console.warn("Botyard widget not shown:", error.message));

  function mount(config) {
    const title = config.title || config.name || "Chat";
    const texts = config.texts || {};
    const label = (texts.chat_title || "{title} chat").replace("{title}", () => title);
    const host = document.createElement("div");
    host.id = "botyard-widget";
    const primary = colour(config.primary_color, "#2563eb");
    host.style.setProperty("--primary", primary);
    host.style.setProperty("--on-primary", readableOn(primary));
    host.style.setProperty("--background", colour(config.background_color, "#ffffff"));
    const root = host.attachShadow({ mode: "open" });
    addStyle(root);

    const wrapper = element("div", root);
    // The chatbot's language: its words for the button, and its direction for the panel (an Arabic chat reads
    // right to left; the page inside the frame mirrors itself the same way).
    wrapper.lang = config.language || "en";
    wrapper.dir = config.direction === "rtl" ? "rtl" : "ltr";
    const panel = element("div", wrapper, { className: "panel", id: "panel", hidden: true });
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-label", label);
    const button = element("button", wrapper, { className: "bubble", type: "button" });
    button.setAttribute("aria-label", texts.open_chat || "Open chat");
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", "panel");
    button.append(icon("chat"), icon("close"));
    let frame = null;
    // Focusing the frame's window (not the <iframe> element, which keeps focus across the load without passing it
    // to the new document) makes the chat page move focus on to its message box.
    const focusChat = () => frame.contentWindow && frame.contentWindow.focus();

    const open = () => {
      if (!frame) {
        frame = element("iframe", panel, { title: label });
        // The chat page answers framed requests only from allowed sites, which it tells by the referrer's origin.
        frame.referrerPolicy = "strict-origin";
        frame.addEventListener("load", focusChat);
        frame.src = `${origin}/chat/${encodeURIComponent(uuid)}#${kept()}`;
      }
      panel.hidden = false;
      wrapper.classList.add("open");
      button.setAttribute("aria-expanded", "true");
      focusChat();
    };
    const close = () => {
      if (panel.hidden) return;
      panel.hidden = true;
      wrapper.classList.remove("open");
      button.setAttribute("aria-expanded", "false");
      button.focus();
    };

    button.addEventListener("click", () => (panel.hidden ? open() : close()));
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape") close();
    });
    // Inside the frame, Escape and the close button post "botyard:close"; only our own frame is listened to.
    window.addEventListener("message", (event) => {
      if (!frame || event.source !== frame.contentWindow || event.origin !== origin || !event.data) return;
      const { type, key, value } = event.data;
      if (type === "botyard:close") close();
      else if (type === "botyard:store" && KEYS.includes(key)) keep(key, value);
    });
    (document.body || document.documentElement).append(host);
  }

  function kept() {
    const values = new URLSearchParams();
    for (const key of KEYS) {
      const value = attempt(() => localStorage.getItem(key));
      if (value) values.set(key, value);
    }
    for (const [key, value] of Object.entries(visitor())) if (value) values.set(`botyard:${key}`, value);
    return values;
  }

  /** Who the visitor is, as the site tells it (`window.BotyardContact = {name, email, attributes}`, or the embed
   * line's `data-contact-name` and `data-contact-email`), and the page they are on: the chat sends them when its
   * conversation begins, so the team knows who writes and from where. */
  function visitor() {
    const given = (typeof window.BotyardContact === "object" && window.BotyardContact) || {};
    const text = (value) => (typeof value === "string" ? value.slice(0, 320) : "");
    const attributes = given.attributes && typeof given.attributes === "object" ? given.attributes : null;
    return {
      name: text(given.name) || text(script.dataset.contactName),
      email: text(given.email) || text(script.dataset.contactEmail),
      attributes: attributes ? attempt(() => JSON.stringify(attributes)) : "",
      page: location.href.slice(0, 2048),
    };
  }

  function keep(key, value) {
    attempt(() => (typeof value === "string" ? localStorage.setItem(key, value) : localStorage.removeItem(key)));
  }

  /** Storage may be refused (privacy settings, sandboxed pages): the chat then lasts as long as the page. */
  function attempt(action) {
    try {
      return action();
    } catch {
      return null;
    }
  }

  function addStyle(root) {
    // A constructed sheet is not an inline <style>, so it works on host pages whose CSP forbids inline styles.
    if ("adoptedStyleSheets" in root && typeof CSSStyleSheet.prototype.replaceSync === "function") {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLE);
      root.adoptedStyleSheets = [sheet];
    } else {
      element("style", root).textContent = STYLE;
    }
  }

  function icon(name) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("class", name);
    const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", ICONS[name]);
    svg.append(path);
    return svg;
  }

  function element(tag, parent, properties) {
    const node = Object.assign(document.createElement(tag), properties);
    parent.append(node);
    return node;
  }

  function colour(value, fallback) {
    return HEX.test(value || "") ? value : fallback;
  }

  /** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
  function readableOn(hex) {
    const [r, g, b] = [1, 3, 5].map((at) => {
      const channel = parseInt(hex.slice(at, at + 2), 16) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    return luminance > 0.179 ? "#000000" : "#ffffff";
  }
})();
