// Uploads: a file picker, and files dropped anywhere on the view; each file
// is streamed with a progress bar, its rate and a cancel button: resumable
// (tus) where the gateway serves /uploads/, else as one PUT.

import * as api from "./api.js";
import { h, fill, formatBytes, formatRate, errorText } from "./dom.js";
import { route } from "./routes.js";
import { notify } from "./shell.js";

// A few uploads at a time keep the connection busy without starving the
// listing's own requests (browsers allow six per host).
const parallel = 3;

// Finished uploads leave the list this long after the last one ended, so
// the panel shrinks back to its one line; failed and cancelled ones stay
// until cleared, since they need the user's attention.
const doneLinger = 8000;

/**
 * The upload panel of a bucket: one line while idle (a file picker and the
 * name prefix, which starts as folder), the uploads below it while they
 * run. onUploaded runs after each stored file. Returns {panel,
 * acceptDrops(el, signal)}: files dropped on el are uploaded too.
 */
export function uploadPanel(bucket, folder, signal, onUploaded) {
  const queue = [];
  let running = 0;
  let linger = 0;

  const list = h("ul", { class: "uploads", "aria-label": "Uploads", hidden: true });
  const namePrefix = h("input", { id: "upload-prefix", name: "prefix", autocomplete: "off", spellcheck: "false", value: folder, placeholder: "e.g. photos/" });
  const prefixShown = h("code", {}, folder || "none");
  namePrefix.addEventListener("input", () => fill(prefixShown, namePrefix.value || "none"));
  const input = h("input", { id: "upload-files", type: "file", multiple: true });
  // The files expire after this delay (X-Gridfs-Expires); "" never.
  const expires = h(
    "select",
    { id: "upload-expires", name: "expires" },
    [["", "never"], ["1h", "in 1 hour"], ["1d", "in 1 day"], ["7d", "in 7 days"], ["30d", "in 30 days"], ["365d", "in a year"]].map(([v, label]) => h("option", { value: v }, label)),
  );
  const expiresShown = h("span", {}, "never");
  expires.addEventListener("change", () => fill(expiresShown, expires.selectedOptions[0].textContent));
  const clear = h("button", { type: "button", class: "link", hidden: true, onclick: () => removeFinished(true) }, "Clear finished");
  const removeFinished = (all) => {
    for (const li of [...list.children]) {
      const s = li.dataset.state;
      if (s === "done" || (all && (s === "failed" || s === "cancelled"))) li.remove();
    }
    list.hidden = list.children.length === 0;
    clear.hidden = ![...list.children].some((li) => li.dataset.state !== "uploading" && li.dataset.state !== "waiting");
  };

  const add = (files) => {
    clearTimeout(linger);
    for (const file of files) {
      const item = newItem(bucket, namePrefix.value + file.name, file, expires.value);
      list.append(item.li);
      queue.push(item);
    }
    list.hidden = list.children.length === 0;
    pump();
  };

  const pump = () => {
    while (running < parallel && queue.length > 0) {
      const item = queue.shift();
      if (item.cancelled) continue;
      running++;
      item.start().then((stored) => {
        running--;
        clear.hidden = false;
        if (stored) onUploaded(stored);
        pump();
        if (running === 0 && queue.length === 0) {
          clearTimeout(linger);
          linger = setTimeout(() => removeFinished(false), doneLinger);
        }
      });
    }
  };

  input.addEventListener("change", () => {
    add([...input.files]);
    input.value = ""; // so choosing the same file again uploads it again
  });
  // Leaving the view does not cancel uploads: they are the user's data in
  // flight. The list goes with the view; the requests finish on their own.
  signal.addEventListener("abort", () => {
    queue.splice(0);
    clearTimeout(linger);
  });

  const panel = h(
    "section",
    { class: "card upload", "aria-labelledby": "upload-h" },
    h(
      "div",
      { class: "upload-bar" },
      h("h2", { id: "upload-h" }, "Upload"),
      h("div", { class: "picker" }, h("label", { for: "upload-files" }, "Choose files"), input),
      h("p", { class: "drop-hint" }, "or drop them anywhere on this page."),
      h(
        "details",
        { class: "upload-options" },
        h("summary", {}, "Name prefix: ", prefixShown, " · expires: ", expiresShown),
        h(
          "div",
          { class: "field" },
          h("label", { for: "upload-prefix" }, "Name prefix ", h("span", { class: "muted" }, "(added before each file name; a name with / is in a folder)")),
          namePrefix,
        ),
        h(
          "div",
          { class: "field" },
          h("label", { for: "upload-expires" }, "Expires ", h("span", { class: "muted" }, "(the files are deleted then, with their chunks)")),
          expires,
        ),
      ),
    ),
    list,
    clear,
  );

  const acceptDrops = (el, viewSignal) => {
    const opts = { signal: viewSignal };
    el.addEventListener("dragover", (e) => {
      if (![...(e.dataTransfer?.types ?? [])].includes("Files")) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
      el.classList.add("dropping");
    }, opts);
    el.addEventListener("dragleave", (e) => {
      if (!el.contains(e.relatedTarget)) el.classList.remove("dropping");
    }, opts);
    el.addEventListener("drop", (e) => {
      el.classList.remove("dropping");
      const files = [...(e.dataTransfer?.files ?? [])];
      if (!files.length) return;
      e.preventDefault();
      add(files);
    }, opts);
    viewSignal.addEventListener("abort", () => el.classList.remove("dropping"));
  };
  return { panel, acceptDrops };
}

function newItem(bucket, name, file, expires) {
  const bar = h("progress", { max: String(file.size || 1), value: 0, "aria-label": `Upload progress of ${name}` });
  const status = h("span", { class: "upload-status" }, "Waiting");
  const cancel = h("button", { type: "button", class: "small", "aria-label": `Cancel upload of ${name}` }, "Cancel");
  const title = h("span", { class: "upload-name" }, name);
  const li = h("li", { dataset: { state: "waiting", name } }, title, bar, h("span", { class: "upload-line" }, status, cancel));
  const item = { li, cancelled: false, start: null };
  const setState = (s) => {
    li.dataset.state = s;
  };

  let abort = () => {
    item.cancelled = true;
    setState("cancelled");
    fill(status, "Cancelled");
    cancel.remove();
  };
  cancel.addEventListener("click", () => abort());

  item.start = async () => {
    setState("uploading");
    fill(status, "Starting…");
    const began = performance.now();
    const progress = {
      expires,
      onProgress(loaded, total) {
        bar.max = total || 1;
        bar.value = loaded;
        const secs = (performance.now() - began) / 1000;
        fill(status, `${formatBytes(loaded)} of ${formatBytes(total)} · ${formatRate(loaded, secs)}`);
      },
      onRetry() {
        fill(status, "Connection lost, resuming…");
      },
    };
    // Resumable (tus) where the gateway offers it, else one PUT.
    const up = (await api.resumableAvailable()) ? api.uploadResumable(bucket, name, file, progress) : api.upload(bucket, name, file, progress);
    abort = () => up.abort();
    try {
      const stored = await up.done;
      const secs = (performance.now() - began) / 1000;
      bar.value = bar.max;
      setState("done");
      fill(title, h("a", { href: route(bucket, name) }, name));
      fill(status, `Uploaded ${formatBytes(file.size)} in ${secs.toFixed(1)} s${secs > 0 ? ` (${formatRate(file.size, secs)})` : ""}`);
      cancel.remove();
      notify(`Uploaded ${name}.`);
      return stored ?? { filename: name };
    } catch (err) {
      cancel.remove();
      if (err.name === "AbortError") {
        setState("cancelled");
        fill(status, "Cancelled");
        notify(`Cancelled upload of ${name}.`);
      } else {
        setState("failed");
        fill(status, h("span", { class: "error-text" }, `Failed: ${errorText(err)}`));
        notify(`Upload of ${name} failed.`);
      }
      return null;
    }
  };
  return item;
}
