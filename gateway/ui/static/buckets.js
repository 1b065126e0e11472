// The buckets view: every bucket with its file count and size; create and drop.

import * as api from "./api.js";
import { h, fill, formatBytes, sizeEl } from "./dom.js";
import { route } from "./routes.js";
import { setPage, showError, clearError, notify, confirmAction } from "./shell.js";

export async function renderBuckets(main, _params, signal) {
  setPage("Buckets", [{ label: "Buckets", href: route() }]);
  const list = h("section", { "aria-labelledby": "buckets-h" }, h("p", { class: "muted" }, "Loading…"));
  main.append(
    h("h1", { tabindex: "-1", id: "buckets-h" }, "Buckets"),
    list,
    createForm(),
  );
  await load(list, signal);
}

async function load(section, signal) {
  const buckets = await api.listBuckets(signal);
  if (buckets.length === 0) {
    // With access control the list holds only what the caller may read;
    // without it there is no token to mention.
    const access = await api.authStatus().catch(() => null);
    let why = "No buckets yet. ";
    if (access?.enabled !== false) {
      why = api.getToken() ? "No buckets yet, or none your token may read. " : "No buckets yet, or none that anonymous users may read (enter a token above to see yours). ";
    }
    fill(
      section,
      h(
        "p",
        {},
        why,
        "Create one below, or upload into the default bucket ",
        h("a", { href: route("fs") }, "fs"),
        ".",
      ),
    );
    return;
  }
  const total = buckets.reduce((n, b) => n + (b.bytes ?? 0), 0);
  fill(
    section,
    h(
      "table",
      { class: "grid buckets" },
      // "Files" are stored files, as GridFS counts them: each revision of
      // a name is one. A bucket's own page counts the same way.
      h("caption", {}, `${buckets.length} bucket${buckets.length === 1 ? "" : "s"}, ${formatBytes(total)} in all; every revision counts as a file`),
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col" }, "Name"), h("th", { scope: "col", class: "num", title: "Stored files: every revision of a name counts" }, "Files"), h("th", { scope: "col", class: "num" }, "Size"), h("th", { scope: "col", class: "num" }, "Chunk size"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions"))),
      ),
      h(
        "tbody",
        {},
        buckets.map((b) =>
          h(
            "tr",
            { dataset: { bucket: b.name } },
            h("th", { scope: "row", "data-label": "Name" }, h("a", { href: route(b.name) }, b.name)),
            h("td", { class: "num", "data-label": "Files" }, (b.files ?? 0).toLocaleString()),
            h("td", { class: "num", "data-label": "Size" }, sizeEl(b.bytes ?? 0)),
            h("td", { class: "num", "data-label": "Chunk size" }, b.settings?.chunkSize ? sizeEl(b.settings.chunkSize) : h("span", { class: "muted" }, "default")),
            h(
              "td",
              { class: "actions" },
              h("button", { type: "button", class: "danger small", onclick: () => drop(section, b, signal), "aria-label": `Drop bucket ${b.name}` }, "Drop…"),
            ),
          ),
        ),
      ),
    ),
  );
}

async function drop(section, b, signal) {
  const files = b.files ?? 0;
  const ok = await confirmAction({
    title: `Drop bucket “${b.name}”?`,
    body:
      files > 0
        ? [`It holds ${files.toLocaleString()} file${files === 1 ? "" : "s"} (${formatBytes(b.bytes ?? 0)}). They will be deleted for good.`]
        : ["The bucket is empty. Its collections and settings will be removed."],
    action: "Drop bucket",
    typed: files > 0 ? b.name : undefined,
  });
  if (!ok) return;
  try {
    await api.dropBucket(b.name, files > 0);
    clearError();
    notify(`Dropped bucket ${b.name}.`);
    await load(section, signal);
  } catch (err) {
    showError(err, `Could not drop ${b.name}`);
  }
}

function createForm() {
  const name = h("input", { id: "new-bucket", name: "name", required: true, autocomplete: "off", spellcheck: "false", maxlength: "120" });
  const chunk = h("input", { id: "new-chunk", name: "chunkSize", type: "number", min: "1", step: "1", inputmode: "numeric", placeholder: "261120" });
  const form = h(
    "form",
    { class: "card stack", "aria-labelledby": "create-h" },
    h("h2", { id: "create-h" }, "Create a bucket"),
    h("div", { class: "field" }, h("label", { for: "new-bucket" }, "Name"), name),
    h(
      "div",
      { class: "field" },
      h("label", { for: "new-chunk" }, "Chunk size in bytes ", h("span", { class: "muted" }, "(optional)")),
      chunk,
    ),
    h("div", {}, h("button", { type: "submit", class: "primary", id: "create-bucket" }, "Create bucket")),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const settings = {};
    if (chunk.value) settings.chunkSize = Number(chunk.value);
    try {
      await api.createBucket(name.value, settings);
      clearError();
      notify(`Created bucket ${name.value}.`);
      location.hash = route(name.value);
    } catch (err) {
      showError(err, `Could not create ${name.value}`);
      name.focus();
    }
  });
  return form;
}
