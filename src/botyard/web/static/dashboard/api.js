// The API from the browser. A person signs in with their email and password: the session lives in an HttpOnly
// cookie the browser sends by itself, and every change echoes the readable `botyard_csrf` cookie in the
// X-Botyard-CSRF header (the server refuses a cookie-signed change without it). Pasting an API key still works: the
// Bearer key then lives in sessionStorage only (this tab, until it closes or the owner signs out). Errors are
// ApiError with the server's `error` message; a 401 signs out.

const KEY = "botyard.key";
export const BASE = "/api/v1";

export class ApiError extends Error {
  constructor(status, message, code = "", body = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

export function getKey() {
  return sessionStorage.getItem(KEY);
}

export function signIn(key) {
  sessionStorage.setItem(KEY, key);
}

/** The session's cross-site token (a cookie this origin's scripts may read), or "". */
export function csrfToken() {
  const found = document.cookie.split("; ").find((item) => item.startsWith("botyard_csrf="));
  return found ? decodeURIComponent(found.slice("botyard_csrf=".length)) : "";
}

/**
 * Clears everything this tab kept and tells the app (which shows the sign-in page). `everywhere`: the person's
 * sessions in every browser end too. A session cookie is ended on the server first (best effort: a session that has
 * ended already is the same as one ended now).
 */
export async function signOut(reason = "", { everywhere = false } = {}) {
  if (!getKey() && csrfToken()) {
    const path = everywhere ? "/auth/sign-out-everywhere" : "/auth/sign-out";
    try {
      await fetch(BASE + path, { method: "POST", headers: { "X-Botyard-CSRF": csrfToken() } });
    } catch {
      // offline: the cookie expires by itself; the tab forgets it either way
    }
  }
  sessionStorage.clear();
  window.dispatchEvent(new CustomEvent("botyard:signed-out", { detail: { reason } }));
}

/** A key in the tab signs with Bearer; otherwise the session cookie goes by itself, and changes carry its token. */
function authHeaders(key, extra = {}, method = "GET") {
  if (key) return { Authorization: `Bearer ${key}`, ...extra };
  const token = method === "GET" || method === "HEAD" ? "" : csrfToken();
  return token ? { "X-Botyard-CSRF": token, ...extra } : { ...extra };
}

async function errorFrom(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: a proxy's page or an empty body
  }
  const message = body && typeof body.error === "string" ? body.error : `HTTP ${response.status}`;
  return new ApiError(response.status, message, body?.code ?? "", body);
}

/** A 401 `unauthorized` (not a wrong password at sign-in) means the key or the session no longer signs anything. */
function refused(error, key) {
  if (error.status !== 401 || error.code !== "unauthorized") return;
  if (key && key === getKey()) signOut("Your API key was not accepted. Please sign in again.");
  else if (!key && !getKey()) signOut("Your session has ended. Please sign in again.");
}

/**
 * Sends one request; resolves to the parsed JSON body, rejects with ApiError.
 * options: {body (JSON), key (default: the stored one), signal, query (object, arrays repeat), headers}
 */
function apiUrl(path, query = {}) {
  const url = new URL(BASE + path, location.origin);
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null && item !== "") url.searchParams.append(name, String(item));
    }
  }
  return url;
}

export async function request(method, path, options = {}) {
  const key = options.key ?? getKey();
  const url = apiUrl(path, options.query);
  const headers = authHeaders(key, options.headers, method);
  const init = { method, headers, signal: options.signal };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(url, init);
  if (!response.ok) {
    const error = await errorFrom(response);
    refused(error, key);
    throw error;
  }
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export const get = (path, options) => request("GET", path, options);
export const post = (path, body, options = {}) => request("POST", path, { ...options, body });

/**
 * Downloads a file the API answers (the key goes in a header, so a plain link cannot): saved under the name of the
 * response's Content-Disposition, else `fallback`. options: {query, signal}.
 */
export async function download(path, fallback, options = {}) {
  const key = getKey();
  const response = await fetch(apiUrl(path, options.query), { headers: authHeaders(key), signal: options.signal });
  if (!response.ok) {
    const error = await errorFrom(response);
    refused(error, key);
    throw error;
  }
  const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "");
  const href = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement("a"), { href, download: named ? named[1] : fallback });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/**
 * A streaming request (SSE): resolves to the fetch Response once its headers are in (rejects with ApiError when
 * the status is not 2xx). The caller reads it with readEvents() from /static/shared/sse.js.
 */
export async function openStream(method, path, options = {}) {
  const key = getKey();
  const headers = authHeaders(key, { Accept: "text/event-stream", ...options.headers }, method);
  const init = { method, headers, signal: options.signal, cache: "no-store" };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(BASE + path, init);
  if (!response.ok) {
    const error = await errorFrom(response);
    refused(error, key);
    throw error;
  }
  return response;
}

/**
 * Uploads one file as multipart form data with XMLHttpRequest, for its upload progress.
 * onProgress(fraction 0..1). Resolves to {status, body}: 200 (created) or 409 (the existing source); rejects with
 * ApiError otherwise. Returns {promise, abort}.
 */
export function upload(path, fields, onProgress) {
  const key = getKey();
  const xhr = new XMLHttpRequest();
  const promise = new Promise((resolve, reject) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (value !== undefined && value !== null && value !== "") form.append(name, value);
    }
    xhr.open("POST", BASE + path);
    for (const [name, value] of Object.entries(authHeaders(key, {}, "POST"))) xhr.setRequestHeader(name, value);
    xhr.responseType = "text";
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener("load", () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON
      }
      if (xhr.status === 200 || xhr.status === 409) {
        onProgress(1);
        resolve({ status: xhr.status, body });
        return;
      }
      const message = body && typeof body.error === "string" ? body.error : `HTTP ${xhr.status}`;
      const error = new ApiError(xhr.status, message, body?.code ?? "", body);
      refused(error, key);
      reject(error);
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, "The upload failed: network error")));
    xhr.addEventListener("abort", () => reject(new ApiError(0, "The upload was cancelled")));
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}

/** Who signs this tab's requests (GET /auth/me: the key, else the session cookie), or null when nobody does. */
export async function whoAmI() {
  try {
    const response = await fetch(`${BASE}/auth/me`, { headers: authHeaders(getKey()) });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}
