// File uploads: a drop zone and a file input queue files; "Upload" sends them (three at a time) with a progress
// bar each (XMLHttpRequest upload progress).
import { upload } from "./api.js";
import { clear, field, h, notice, uid } from "./ui.js";

const ACCEPT = ".pdf,.docx,.doc,.pptx,.xlsx,.xls,.csv,.md,.markdown,.txt,.html,.htm,.json,.tex";
const AT_ONCE = 3;

function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1048576) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

export function uploader(ctx, onUploaded) {
  const note = notice();
  const queue = []; // {file, state: "queued"|"uploading"|"done"|"failed", bar, text}
  const input = h("input", { type: "file", multiple: true, accept: ACCEPT, class: "file-input" });
  input.id = uid("files");
  const zone = h(
    "div",
    { class: "dropzone" },
    h("p", {}, "Drag and drop files here, or"),
    h("label", { for: input.id, class: "button" }, "Choose files"),
    input,
    h("p", { class: "hint" }, "PDF, Word, PowerPoint, Excel, CSV, Markdown, text, HTML, JSON or TeX."),
  );
  const link = h("input", { type: "url", placeholder: "https://example.com/manual" });
  const list = h("ul", { class: "upload-list", "aria-label": "Files to upload" });
  const go = h("button", { type: "button", class: "primary" }, "Upload");
  go.disabled = true;

  function add(files) {
    for (const file of files) {
      const bar = h("progress", { max: 1, value: 0, "aria-label": `Upload progress of ${file.name}` });
      bar.value = 0;
      const text = h("span", { class: "upload-state" }, "Ready");
      const name = h("span", { class: "name" }, file.name);
      const li = h("li", {}, name, h("span", { class: "sub" }, size(file.size)), bar, text);
      const item = { file, state: "queued", bar, text, li };
      queue.push(item);
      list.append(item.li);
    }
    go.disabled = !queue.some((item) => item.state === "queued");
    if (files.length) note.ok(`${files.length} file${files.length > 1 ? "s" : ""} ready: press Upload.`);
  }

  input.addEventListener("change", () => {
    add([...input.files]);
    input.value = "";
  });
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    add([...(event.dataTransfer?.files ?? [])]);
  });

  async function send(item) {
    item.state = "uploading";
    item.text.textContent = "Uploading…";
    const fields = { file: item.file, reference_source_link: link.value.trim() };
    const { promise, abort } = upload(`/chatbot/${ctx.chatbot.uuid}/data-source/upload`, fields, (fraction) => {
      item.bar.value = fraction;
    });
    const onAbort = () => abort();
    ctx.signal.addEventListener("abort", onAbort);
    try {
      const { status } = await promise;
      item.state = "done";
      item.text.textContent = status === 409 ? "Already added" : "Uploaded";
      onUploaded();
    } catch (error) {
      item.state = "failed";
      item.text.textContent = `Failed: ${error.message}`;
      item.li.classList.add("failed");
      throw error;
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
  }

  go.addEventListener("click", async () => {
    const waiting = queue.filter((item) => item.state === "queued");
    go.disabled = true;
    note.ok(`Uploading ${waiting.length} file${waiting.length > 1 ? "s" : ""}…`);
    const failures = [];
    const worker = async () => {
      while (waiting.length) {
        const item = waiting.shift();
        await send(item).catch((error) => failures.push(`${item.file.name}: ${error.message}`));
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, worker));
    if (ctx.signal.aborted) return;
    if (failures.length) note.error(`Not uploaded: ${failures.join("; ")}`);
    else note.ok("Upload finished: the files are being processed.");
    for (const item of queue.filter((entry) => entry.state === "done")) item.li.classList.add("done");
    go.disabled = !queue.some((item) => item.state === "queued");
  });

  const clearDone = h("button", { type: "button", class: "quiet" }, "Clear finished");
  clearDone.addEventListener("click", () => {
    for (let i = queue.length - 1; i >= 0; i--) {
      if (queue[i].state === "done" || queue[i].state === "failed") {
        queue[i].li.remove();
        queue.splice(i, 1);
      }
    }
    if (!queue.length) clear(list);
  });

  return h(
    "div",
    { class: "uploader" },
    zone,
    field("Reference link (optional)", link, "The link cited for these files."),
    list,
    h("div", { class: "actions" }, go, clearDone),
    note.element,
  );
}
