// Uploads: a drop zone and a file picker for several files; each file is
// streamed as its own PUT with a progress bar, its rate and a cancel button.

import * as api from "./api.js";
import { h, fill, formatBytes, formatRate, errorText } from "./dom.js";
import { route } from "./routes.js";
import { notify } from "./shell.js";

// A few uploads at a time keep the connection busy without starving the
// listing's own requests (browsers allow six per host).
const parallel = 3;

/**
 * The upload panel of a bucket. prefix is the listing's filter, used as the
 * default name prefix when it looks like a folder. onUploaded runs after
 * each stored file.
 */
export function uploadPanel(bucket, prefix, signal, onUploaded) {
  const queue = [];
  let running = 0;

  const list = h("ul", { class: "uploads", "aria-label": "Uploads" });
  const namePrefix = h("input", { id: "upload-prefix", name: "prefix", autocomplete: "off", spellcheck: "false", value: prefix.endsWith("/") ? prefix : "", placeholder: "e.g. photos/" });
  const input = h("input", { id: "upload-files", type: "file", multiple: true });
  const zone = h(
    "div",
    { class: "dropzone" },
    h("p", { class: "drop-hint" }, "Drop files here, or"),
    h("div", { class: "field" }, h("label", { for: "upload-files" }, "Choose files to upload"), input),
  );
  const clear = h("button", { type: "button", class: "link", hidden: true, onclick: () => {
    for (const li of [...list.children]) if (li.dataset.state !== "uploading" && li.dataset.state !== "waiting") li.remove();
    clear.hidden = true;
  } }, "Clear finished");

  const add = (files) => {
    for (const file of files) {
      const item = newItem(bucket, namePrefix.value + file.name, file);
      list.append(item.li);
      queue.push(item);
    }
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
      });
    }
  };

  input.addEventListener("change", () => {
    add([...input.files]);
    input.value = ""; // so choosing the same file again uploads it again
  });
  zone.addEventListener("dragover", (e) => {
    if (![...(e.dataTransfer?.types ?? [])].includes("Files")) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", (e) => {
    if (!zone.contains(e.relatedTarget)) zone.classList.remove("over");
  });
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    const files = [...(e.dataTransfer?.files ?? [])];
    if (files.length) add(files);
  });
  // Leaving the view does not cancel uploads: they are the user's data in
  // flight. The list goes with the view; the requests finish on their own.
  signal.addEventListener("abort", () => queue.splice(0));

  return h(
    "section",
    { class: "card upload", "aria-labelledby": "upload-h" },
    h("h2", { id: "upload-h" }, "Upload"),
    h(
      "div",
      { class: "field" },
      h("label", { for: "upload-prefix" }, "Name prefix ", h("span", { class: "muted" }, "(optional, added before each file name)")),
      namePrefix,
    ),
    zone,
    list,
    clear,
  );
}

function newItem(bucket, name, file) {
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
    const up = api.upload(bucket, name, file, {
      onProgress(loaded, total) {
        bar.max = total || 1;
        bar.value = loaded;
        const secs = (performance.now() - began) / 1000;
        fill(status, `${formatBytes(loaded)} of ${formatBytes(total)} · ${formatRate(loaded, secs)}`);
      },
    });
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
