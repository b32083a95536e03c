// What this Botyard runs (GET /service): which answerer (offline, or a language model) and which embedder.
import { get } from "./api.js";
import { h, uid } from "./ui.js";

let known = null;

/** The service's description, read once per page load (a failed read is tried again next time). */
export async function serviceInfo() {
  known ??= get("/service").catch((error) => {
    known = null;
    throw error;
  });
  return known;
}

/** Read the description again next time (the Settings page changed what answers). */
export function forgetServiceInfo() {
  known = null;
}

/** One line for people: "Answers: offline · Embeddings: multilingual" (or the model API's host). */
export function describeService(info) {
  const answers = info.answerer === "llm" ? `language model at ${info.llm_host}` : "offline (no language model)";
  const embeddings = info.embedder === "none" ? "none (keyword search)" : info.embedder;
  return `Answers: ${answers} · Embeddings: ${embeddings}`;
}

/** The details behind that line: the model map, the embedding model, the version. */
export function serviceDetails(info) {
  const models = Object.entries(info.llm_models ?? {}).map(([name, model]) => `${name} → ${model}`);
  const lines = [`Botyard ${info.version}`];
  if (info.answerer === "llm") {
    lines.push(`Language model API: ${info.llm_host}`);
    lines.push(`Models: ${models.length ? models.join(", ") : "each name's base"}`);
    if (info.llm_default_model) lines.push(`Other names: ${info.llm_default_model}`);
  } else lines.push("No language model: set one in Settings (or BOTYARD_LLM_BASE_URL) to use one.");
  lines.push(`Embedding model: ${info.embedder_model ?? "none"}`);
  return lines.join("\n");
}

const LLM_ONLY =
  "Used only with a language model (its base URL in Settings, or BOTYARD_LLM_BASE_URL): this service answers offline.";

/** Greys `element` and says why (read by screen readers with each of its controls): the settings inside take effect
 * only when a language model answers. */
export function llmOnly(element) {
  const note = h("p", { class: "llm-note", id: uid("llm") }, LLM_ONLY);
  element.classList.add("llm-only");
  for (const control of element.querySelectorAll("input, select, textarea")) {
    const described = control.getAttribute("aria-describedby");
    control.setAttribute("aria-describedby", described ? `${described} ${note.id}` : note.id);
  }
  element.prepend(note);
  return element;
}
