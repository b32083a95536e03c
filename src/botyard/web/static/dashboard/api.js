// The owner API from the browser: the Bearer key lives in sessionStorage only (this tab, until it closes or the
// owner signs out). Errors are ApiError with the server's `error` message; a 401 signs out.

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

/** Clears everything this tab kept and tells the app (which shows the sign-in page). */
export function signOut(reason = "") {
  sessionStorage.clear();
  window.dispatchEvent(new CustomEvent("botyard:signed-out", { detail: { reason } }));
}

function authHeaders(key, extra = {}) {
  return key ? { Authorization: `Bearer ${key}`, ...extra } : { ...extra };
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

function refused(status, key) {
  if (status === 401 && key && key === getKey()) signOut("Your API key was not accepted. Please sign in again.");
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
  const headers = authHeaders(key, options.headers);
  const init = { method, headers, signal: options.signal };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(url, init);
  if (!response.ok) {
    refused(response.status, key);
    throw await errorFrom(response);
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
    refused(response.status, key);
    throw await errorFrom(response);
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
  const headers = authHeaders(key, { Accept: "text/event-stream", ...options.headers });
  const init = { method, headers, signal: options.signal, cache: "no-store" };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(BASE + path, init);
  if (!response.ok) {
    refused(response.status, key);
    throw await errorFrom(response);
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
    if (key) xhr.setRequestHeader("Authorization", `Bearer ${key}`);
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
      refused(xhr.status, key);
      const message = body && typeof body.error === "string" ? body.error : `HTTP ${xhr.status}`;
      reject(new ApiError(xhr.status, message, body?.code ?? "", body));
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, "The upload failed: network error")));
    xhr.addEventListener("abort", () => reject(new ApiError(0, "The upload was cancelled")));
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}
