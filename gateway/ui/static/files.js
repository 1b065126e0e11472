// A bucket's files: folders (names split at "/"), prefix filter, sort,
// keyset paging, thumbnails, uploads.

import * as api from "./api.js";
import { h, fill, sizeEl, timeEl } from "./dom.js";
import { route } from "./routes.js";
import { setPage, showError } from "./shell.js";
import { uploadPanel } from "./uploads.js";
import { lifecyclePanel } from "./lifecycle.js";
import { thumbnailer, iconFor } from "./thumbs.js";

const defaultPageSize = 50;

// Names are split into folders at this, as object-store consoles do.
const delimiter = "/";

// Sorting is over the files already loaded; the gateway's own order
// (filename, then upload date) is what keyset paging walks.
const sorts = {
  name: { label: "Name, A to Z", cmp: (a, b) => cmpStr(a.filename, b.filename) },
  "-name": { label: "Name, Z to A", cmp: (a, b) => cmpStr(b.filename, a.filename) },
  "-date": { label: "Newest first", cmp: (a, b) => cmpStr(b.uploadDate, a.uploadDate) },
  date: { label: "Oldest first", cmp: (a, b) => cmpStr(a.uploadDate, b.uploadDate) },
  "-size": { label: "Largest first", cmp: (a, b) => b.length - a.length },
  size: { label: "Smallest first", cmp: (a, b) => a.length - b.length },
  type: { label: "Content type", cmp: (a, b) => cmpStr(a.contentType ?? "~", b.contentType ?? "~") || cmpStr(a.filename, b.filename) },
};

function cmpStr(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Which column each sort orders, for aria-sort on the header.
const sortColumn = { name: ["name", "ascending"], "-name": ["name", "descending"], date: ["date", "ascending"], "-date": ["date", "descending"], size: ["size", "ascending"], "-size": ["size", "descending"], type: ["type", "ascending"] };

/** The folder part of a prefix: up to and including its last delimiter. */
export function folderOf(prefix) {
  const i = prefix.lastIndexOf(delimiter);
  return i < 0 ? "" : prefix.slice(0, i + delimiter.length);
}

export async function renderFiles(main, params, signal) {
  const { bucket } = params;
  const prefix = params.prefix ?? "";
  const folder = folderOf(prefix);
  const sort = sorts[params.sort] ? params.sort : "name";
  // ?view=all lists every name under the prefix, without folders.
  const flat = params.view === "all";
  // ?limit= in the hash sets the page size, as the API's own limit does.
  const limit = /^\d+$/.test(params.limit ?? "") && params.limit >= 1 && params.limit <= 1000 ? Number(params.limit) : defaultPageSize;
  const keep = { sort: sort === "name" ? "" : sort, limit: params.limit, view: flat ? "all" : "" };
  // Each folder of the path is a crumb that lists it.
  const crumbs = [
    { label: "Buckets", href: route() },
    { label: bucket, href: route(bucket, undefined, keep) },
  ];
  const segments = folder.split(delimiter).slice(0, -1);
  segments.forEach((s, i) => {
    crumbs.push({ label: s || "(empty)", href: route(bucket, undefined, { ...keep, prefix: segments.slice(0, i + 1).join(delimiter) + delimiter }) });
  });
  setPage(folder ? `${folder} · ${bucket}` : bucket, crumbs);

  // State of the listing: every loaded revision and folder.
  const state = { files: [], folders: [], next: "", loading: false };
  const listing = h("section", { class: "listing", "aria-labelledby": "files-h" });
  const thumbs = thumbnailer(bucket, signal);

  // Uploads finish in any order; reloads run one after another.
  let reloading = Promise.resolve();
  const reload = () =>
    (reloading = reloading.then(() => {
      state.files = [];
      state.folders = [];
      state.next = "";
      return more();
    }));
  const more = async (fromButton = false) => {
    if (state.loading) return;
    state.loading = true;
    try {
      const page = await api.listFiles(bucket, { prefix, limit, cursor: state.next, delimiter: flat ? "" : delimiter }, signal);
      state.files.push(...page.files);
      state.folders.push(...page.prefixes);
      state.next = page.next;
      draw();
      // The button that had focus was redrawn: keep keyboard users in place.
      if (fromButton) (listing.querySelector("#more") ?? listing.querySelector("table"))?.focus();
    } catch (err) {
      if (err.name === "AbortError") return;
      showError(err, "Could not list files");
      if (state.files.length === 0) fill(listing, h("p", { class: "empty" }, "The files of this bucket could not be listed (see the error above)."));
    } finally {
      state.loading = false;
    }
  };
  const view = { bucket, prefix, folder: flat ? "" : folder, keep, limit, sort: sorts[sort], sortCol: sortColumn[sort], thumbs };
  const draw = () => drawListing(listing, view, state, more);

  const heading = folder
    ? h("h1", { tabindex: "-1", id: "files-h" }, h("span", { class: "muted" }, `${bucket} / `), folder)
    : h("h1", { tabindex: "-1", id: "files-h" }, h("span", { class: "muted" }, "Bucket "), bucket);
  const upload = uploadPanel(bucket, folder, signal, () => reload());
  main.append(heading, upload.panel, filterForm(bucket, prefix, sort, flat, params.limit), listing, lifecyclePanel(bucket, signal));
  // Files dropped anywhere on the view are uploaded, not only on the panel.
  upload.acceptDrops(main, signal);
  listing.append(h("p", { class: "muted" }, "Loading…"));
  await more();
}

function filterForm(bucket, prefix, sort, flat, limit) {
  const input = h("input", { id: "prefix", name: "prefix", type: "search", value: prefix, autocomplete: "off", spellcheck: "false", placeholder: "e.g. photos/2024/" });
  const select = h(
    "select",
    { id: "sort", name: "sort" },
    Object.entries(sorts).map(([k, s]) => h("option", { value: k, selected: k === sort }, s.label)),
  );
  const show = h(
    "select",
    { id: "view", name: "view" },
    h("option", { value: "", selected: !flat }, "Folders"),
    h("option", { value: "all", selected: flat }, "All files, no folders"),
  );
  const go = () => {
    location.hash = route(bucket, undefined, { prefix: input.value, sort: select.value === "name" ? "" : select.value, view: show.value, limit });
  };
  select.addEventListener("change", go);
  show.addEventListener("change", go);
  const form = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Filter files" },
    h("div", { class: "field grow" }, h("label", { for: "prefix" }, "Name starts with"), input),
    h("div", { class: "field" }, h("label", { for: "sort" }, "Sort by"), select),
    h("div", { class: "field" }, h("label", { for: "view" }, "Show"), show),
    h("div", { class: "field end" }, h("button", { type: "submit" }, "Filter")),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    go();
  });
  return form;
}

function drawListing(section, view, state, more) {
  const { bucket, prefix, folder, keep, limit, sort, thumbs } = view;
  const [sortCol, sortDir] = view.sortCol;
  // One row per name, showing its newest revision: the listing is ordered
  // by filename then upload date, so the last one seen is the newest.
  const byName = new Map();
  for (const f of state.files) {
    const row = byName.get(f.filename);
    if (row) {
      row.revisions++;
      row.file = f;
    } else {
      byName.set(f.filename, { file: f, revisions: 1 });
    }
  }
  const rows = [...byName.values()].sort((a, b) => sort.cmp(a.file, b.file));
  const folders = [...state.folders].sort((a, b) => (sortCol === "name" && sortDir === "descending" ? cmpStr(b, a) : cmpStr(a, b)));
  // Files counted as the bucket list counts them: every revision is a
  // stored file; the rows are names.
  const files = state.files.length;
  const parts = [`${files} file${files === 1 ? "" : "s"} (${rows.length} name${rows.length === 1 ? "" : "s"})`];
  if (folders.length) parts.push(`${folders.length} folder${folders.length === 1 ? "" : "s"}`);
  const where = prefix && prefix !== folder ? ` starting with “${prefix}”` : folder ? ` in ${folder}` : "";
  const caption = `${parts.join(", ")}${where}${state.next ? ", more to load" : ""}`;

  thumbs.reset();
  if (rows.length === 0 && folders.length === 0) {
    fill(section, h("p", { class: "empty" }, prefix ? `No file name starts with “${prefix}”.` : "This bucket has no files yet. Drop files on this page or choose them to upload."));
    return;
  }
  const th = (col, label, cls) => h("th", { scope: "col", class: cls, "aria-sort": sortCol === col ? sortDir : null }, label);
  // Names are shown without the folder they are in, which the crumbs say.
  const shown = (name) => (folder && name.startsWith(folder) ? name.slice(folder.length) : name);
  fill(
    section,
    h(
      "table",
      { class: "grid files", tabindex: "-1" },
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col", class: "thumb-col" }, h("span", { class: "visually-hidden" }, "Preview")),
          th("name", "Name"),
          th("size", "Size", "num"),
          th("type", "Content type", "type"),
          th("date", "Uploaded", "date"),
          h("th", { scope: "col", class: "num", title: "Stored files of this name" }, "Revisions"),
        ),
      ),
      h(
        "tbody",
        {},
        folders.map((p) =>
          h(
            "tr",
            { class: "folder", dataset: { prefix: p } },
            h("td", { class: "thumb-col" }, iconFor("folder")),
            h("th", { scope: "row", class: "name", "data-label": "Name" }, h("a", { href: route(bucket, undefined, { ...keep, prefix: p }), "aria-label": `Folder ${shown(p)}` }, shown(p))),
            h("td", { class: "muted folder-note", colspan: "4" }, "Folder"),
          ),
        ),
        rows.map(({ file: f, revisions }) =>
          h(
            "tr",
            { dataset: { filename: f.filename, length: String(f.length) } },
            h("td", { class: "thumb-col" }, thumbs.cell(f)),
            h("th", { scope: "row", class: "name", "data-label": "Name" }, h("a", { href: route(bucket, f.filename), title: f.filename }, shown(f.filename))),
            h("td", { class: "num", "data-label": "Size" }, sizeEl(f.length)),
            h("td", { class: "type", "data-label": "Type" }, f.contentType ?? h("span", { class: "muted", title: "None stored: the gateway derives one from the name or the first bytes" }, "–")),
            h("td", { class: "date", "data-label": "Uploaded" }, timeEl(f.uploadDate)),
            h("td", { class: "num", "data-label": "Revisions" }, String(revisions)),
          ),
        ),
      ),
    ),
    state.next
      ? h("p", { class: "more" }, h("button", { type: "button", id: "more", onclick: (e) => {
          e.currentTarget.disabled = true;
          more(true);
        } }, `Load ${limit} more`))
      : null,
  );
  thumbs.watch(section);
}
