// Where the chat page keeps its device id and session: its own localStorage, or (framed by the widget) the host
// page's storage through the widget.

const DEVICE_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** The device id kept in `store`, made and kept on first use. */
export function deviceIdIn(store) {
  let id = store.get("botyard:device");
  if (!DEVICE_ID.test(id ?? "")) {
    // getRandomValues, not randomUUID: the latter needs a secure context and self-hosters may serve plain http.
    id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
    store.set("botyard:device", id);
  }
  return id;
}

/** Framed by the widget: browsers block or partition a framed third party's storage, so the widget keeps the values
 * in its host page's storage. They arrive in this page's URL fragment; changes go back to the widget by message
 * (nothing else is ever posted, so a page framing this one learns only the session it saw created). */
export function hostStorage() {
  const values = new Map(new URLSearchParams(location.hash.slice(1)));
  const post = (key, value) => window.parent.postMessage({ type: "botyard:store", key, value }, "*");
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => {
      values.set(key, value);
      post(key, value);
    },
    remove: (key) => {
      values.delete(key);
      post(key, null);
    },
  };
}

/** localStorage, or memory for this page's life where the browser refuses storage. */
export function pageStorage() {
  const memory = new Map();
  const attempt = (action, fallback) => {
    try {
      return action();
    } catch {
      return fallback;
    }
  };
  return {
    get: (key) => attempt(() => localStorage.getItem(key), null) ?? memory.get(key) ?? null,
    set: (key, value) => {
      memory.set(key, value);
      attempt(() => localStorage.setItem(key, value));
    },
    remove: (key) => {
      memory.delete(key);
      attempt(() => localStorage.removeItem(key));
    },
  };
}
