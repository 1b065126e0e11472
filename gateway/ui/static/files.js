// A bucket's files: prefix filter, sort, keyset paging, uploads.

import * as api from "./api.js";
import { h, fill, sizeEl, timeEl } from "./dom.js";
import { route } from "./routes.js";
import { setPage, showError } from "./shell.js";
import { uploadPanel } from "./uploads.js";

const defaultPageSize = 50;

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

export async function renderFiles(main, params, signal) {
  const { bucket } = params;
  const prefix = params.prefix ?? "";
  const sort = sorts[params.sort] ? params.sort : "name";
  // ?limit= in the hash sets the page size, as the API's own limit does.
  const limit = /^\d+$/.test(params.limit ?? "") && params.limit >= 1 && params.limit <= 1000 ? Number(params.limit) : defaultPageSize;
  setPage(bucket, [
    { label: "Buckets", href: route() },
    { label: bucket, href: route(bucket) },
  ]);

  // State of the listing: every loaded revision, grouped by name.
  const state = { files: [], next: "", loading: false };
  const listing = h("section", { class: "listing", "aria-labelledby": "files-h" });

  // Uploads finish in any order; reloads run one after another.
  let reloading = Promise.resolve();
  const reload = () =>
    (reloading = reloading.then(() => {
      state.files = [];
      state.next = "";
      return more();
    }));
  const more = async (fromButton = false) => {
    if (state.loading) return;
    state.loading = true;
    try {
      const page = await api.listFiles(bucket, { prefix, limit, cursor: state.next }, signal);
      state.files.push(...page.files);
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
  const draw = () => drawListing(listing, bucket, state, sorts[sort], sortColumn[sort], prefix, limit, more);

  main.append(
    h("h1", { tabindex: "-1", id: "files-h" }, h("span", { class: "muted" }, "Bucket "), bucket),
    uploadPanel(bucket, prefix, signal, () => reload()),
    filterForm(bucket, prefix, sort, params.limit),
    listing,
  );
  listing.append(h("p", { class: "muted" }, "Loading…"));
  await more();
}

function filterForm(bucket, prefix, sort, limit) {
  const input = h("input", { id: "prefix", name: "prefix", type: "search", value: prefix, autocomplete: "off", spellcheck: "false", placeholder: "e.g. photos/2024/" });
  const select = h(
    "select",
    { id: "sort", name: "sort" },
    Object.entries(sorts).map(([k, s]) => h("option", { value: k, selected: k === sort }, s.label)),
  );
  const go = () => {
    location.hash = route(bucket, undefined, { prefix: input.value, sort: select.value === "name" ? "" : select.value, limit });
  };
  select.addEventListener("change", go);
  const form = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Filter files" },
    h("div", { class: "field" }, h("label", { for: "prefix" }, "Name starts with"), input),
    h("div", { class: "field" }, h("label", { for: "sort" }, "Sort by"), select),
    h("div", { class: "field end" }, h("button", { type: "submit" }, "Filter")),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    go();
  });
  return form;
}

function drawListing(section, bucket, state, sort, [sortCol, sortDir], prefix, limit, more) {
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
  // Files counted as the bucket list counts them: every revision is a
  // stored file; the rows are names.
  const files = state.files.length;
  const caption = `${files} file${files === 1 ? "" : "s"} (${rows.length} name${rows.length === 1 ? "" : "s"})${prefix ? ` starting with “${prefix}”` : ""}${state.next ? ", more to load" : ""}`;

  if (rows.length === 0) {
    fill(section, h("p", { class: "empty" }, prefix ? `No file name starts with “${prefix}”.` : "This bucket has no files yet. Drop files above or choose them to upload."));
    return;
  }
  const th = (col, label, cls) =>
    h("th", { scope: "col", class: cls, "aria-sort": sortCol === col ? sortDir : null }, label);
  fill(
    section,
    h(
      "table",
      { class: "grid files", tabindex: "-1" },
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h("tr", {}, th("name", "Name"), th("size", "Size", "num"), th("type", "Content type"), th("date", "Uploaded"), h("th", { scope: "col", class: "num" }, "Revisions")),
      ),
      h(
        "tbody",
        {},
        rows.map(({ file: f, revisions }) =>
          h(
            "tr",
            { dataset: { filename: f.filename, length: String(f.length) } },
            h("th", { scope: "row", class: "name", "data-label": "Name" }, h("a", { href: route(bucket, f.filename) }, f.filename)),
            h("td", { class: "num", "data-label": "Size" }, sizeEl(f.length)),
            h("td", { "data-label": "Type" }, f.contentType ?? h("span", { class: "muted" }, "–")),
            h("td", { "data-label": "Uploaded" }, timeEl(f.uploadDate)),
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
}
