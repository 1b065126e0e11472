// One file: preview, details, revisions, rename, metadata, delete.

import * as api from "./api.js";
import { h, fill, sizeEl, timeEl, errorText } from "./dom.js";
import { route } from "./routes.js";
import { setPage, showError, clearError, notify, confirmAction } from "./shell.js";
import { renderPreview } from "./preview.js";
import { liveLink } from "./links.js";

export async function renderFile(main, params, signal) {
  const { bucket, name } = params;
  setPage(name, [
    { label: "Buckets", href: route() },
    { label: bucket, href: route(bucket) },
    { label: name, href: route(bucket, name) },
  ]);
  const heading = h("h1", { tabindex: "-1", class: "filename" }, name);
  main.append(heading);

  const revisions = await api.listRevisions(bucket, name, signal);
  if (revisions.length === 0) {
    main.append(
      h("p", { class: "empty" }, `No file named “${name}” in bucket ${bucket}. It may have been renamed or deleted.`),
      h("p", {}, h("a", { href: route(bucket) }, `Back to ${bucket}`)),
    );
    return;
  }
  const newest = revisions.length - 1;
  const n = params.rev !== undefined && /^\d+$/.test(params.rev) && Number(params.rev) <= newest ? Number(params.rev) : newest;
  const file = revisions[n];

  if (revisions.length > 1) {
    main.append(h("p", { class: "muted" }, n === newest ? `Newest of ${revisions.length} revisions` : `Revision ${n} of ${revisions.length} (0 is the oldest)`));
  }
  const preview = h("section", { class: "card preview", "aria-labelledby": "preview-h" }, h("h2", { id: "preview-h" }, "Preview"));
  // Without a stored type, the gateway serves one it derives from the name
  // or the first bytes: the details show that one, and the preview uses it.
  const served = file.contentType ? Promise.resolve(file.contentType) : api.servedType(bucket, file, signal);
  main.append(
    preview,
    details(bucket, file, n, newest, served),
    metadataSection(bucket, file),
    revisionsSection(bucket, name, revisions, n),
    renameSection(bucket, name, file, revisions),
    deleteSection(bucket, name, file, revisions),
  );
  await renderPreview(preview, bucket, file, served, signal);
}

function details(bucket, file, n, newest, served) {
  const row = (label, ...value) => [h("dt", {}, label), h("dd", {}, ...value)];
  const revision = n === newest ? undefined : n;
  // Plain URLs at first; with a token set they become signed ones, since a
  // followed link sends no Authorization header.
  const open = liveLink(h("a", { href: api.fileURL(bucket, file.filename, { revision }) }, "Open"), () => api.nameLinkURL(bucket, file.filename, { revision }));
  const download = liveLink(h("a", { href: api.idURL(bucket, file.id, { download: true }), download: "" }, "Download"), () => api.downloadURL(bucket, file));
  const permanent = liveLink(h("a", { href: api.idURL(bucket, file.id) }, "Permanent link (by id)"), () => api.idLinkURL(bucket, file.id));
  return h(
    "section",
    { class: "card", "aria-labelledby": "details-h" },
    h("h2", { id: "details-h" }, "Details"),
    h(
      "dl",
      { class: "details" },
      row("Size", sizeEl(file.length), ` (${file.length.toLocaleString()} bytes)`),
      row("Content type", file.contentType ?? servedTypeEl(served)),
      row("Uploaded", timeEl(file.uploadDate)),
      row("Expires", file.expires ? timeEl(file.expires) : h("span", { class: "muted" }, "never by itself (the bucket's lifecycle rules may expire it)")),
      row("Chunk size", sizeEl(file.chunkSize)),
      row("SHA-256", file.sha256 ? h("code", { class: "hash" }, file.sha256) : h("span", { class: "muted" }, "not recorded (written by another tool)")),
      row("ID", h("code", { class: "hash" }, api.idText(file.id))),
      file.md5 ? row("MD5 (legacy)", h("code", { class: "hash" }, file.md5)) : null,
    ),
    h(
      "p",
      { class: "links" },
      open,
      download,
      permanent,
    ),
    api.linksExpire() ? h("p", { class: "muted" }, "These links and those of the revisions are signed for your token: anyone who has one can read the file with it for 10 minutes.") : null,
  );
}

// The type a file without a stored one is served with, once the gateway
// said it, and why it is not the stored one.
function servedTypeEl(served) {
  const el = h("span", { id: "served-type" }, h("span", { class: "muted" }, "…"));
  served.then(
    (type) => fill(el, type || "application/octet-stream", " ", h("span", { class: "muted" }, "(none stored: served with the type the gateway derives from the name or the first bytes)")),
    (err) => {
      if (err.name !== "AbortError") fill(el, h("span", { class: "muted" }, `none stored (${errorText(err)})`));
    },
  );
  return el;
}

function metadataSection(bucket, file) {
  const text = JSON.stringify(file.metadata ?? {}, null, 2);
  const area = h("textarea", { id: "metadata", rows: String(Math.min(16, Math.max(4, text.split("\n").length + 1))), spellcheck: "false" });
  area.value = text;
  const form = h(
    "form",
    { class: "stack" },
    h("div", { class: "field" }, h("label", { for: "metadata" }, "Metadata (JSON object; Extended JSON such as {\"$date\": …} is kept)"), area),
    h("div", {}, h("button", { type: "submit", id: "save-metadata" }, "Save metadata")),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    let metadata;
    try {
      metadata = JSON.parse(area.value || "{}");
    } catch (err) {
      showError(err, "Metadata is not valid JSON");
      area.focus();
      return;
    }
    if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) {
      showError(new Error("it must be a JSON object, such as {\"author\": \"ada\"}"), "Metadata not saved");
      area.focus();
      return;
    }
    try {
      await api.patchFile(bucket, file.id, { metadata });
      clearError();
      notify("Metadata saved.");
      go(location.hash);
    } catch (err) {
      showError(err, "Could not save metadata");
    }
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "metadata-h" },
    h("h2", { id: "metadata-h" }, "Metadata"),
    form,
  );
}

function revisionsSection(bucket, name, revisions, current) {
  return h(
    "section",
    { class: "card", "aria-labelledby": "revisions-h" },
    h("h2", { id: "revisions-h" }, "Revisions"),
    h(
      "table",
      { class: "grid revisions" },
      h("caption", { class: "visually-hidden" }, `Revisions of ${name}, oldest first`),
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col", class: "num" }, "Revision"), h("th", { scope: "col" }, "Uploaded"), h("th", { scope: "col", class: "num" }, "Size"), h("th", { scope: "col" }, "Links")),
      ),
      h(
        "tbody",
        {},
        revisions.map((f, i) =>
          h(
            "tr",
            { "aria-current": i === current ? "true" : null },
            h("th", { scope: "row", class: "num", "data-label": "Revision" }, i === current ? `${i} (shown)` : h("a", { href: route(bucket, name, { rev: i }) }, String(i))),
            h("td", { "data-label": "Uploaded" }, timeEl(f.uploadDate)),
            h("td", { class: "num", "data-label": "Size" }, sizeEl(f.length)),
            h(
              "td",
              { class: "links", "data-label": "Links" },
              liveLink(h("a", { href: api.fileURL(bucket, name, { revision: i }) }, `?revision=${i}`), () => api.nameLinkURL(bucket, name, { revision: i })),
              liveLink(h("a", { href: api.idURL(bucket, f.id) }, "by id"), () => api.idLinkURL(bucket, f.id)),
            ),
          ),
        ),
      ),
    ),
  );
}

function renameSection(bucket, name, file, revisions) {
  const input = h("input", { id: "rename", required: true, value: name, autocomplete: "off", spellcheck: "false" });
  const all = h("input", { id: "rename-all", type: "checkbox", checked: true });
  const form = h(
    "form",
    { class: "stack" },
    h("div", { class: "field" }, h("label", { for: "rename" }, "New name"), input),
    revisions.length > 1
      ? h("div", { class: "check" }, all, h("label", { for: "rename-all" }, `Rename all ${revisions.length} revisions (otherwise only the one shown)`))
      : null,
    h("div", {}, h("button", { type: "submit", id: "rename-submit" }, "Rename")),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const to = input.value;
    if (to === name) return;
    const targets = revisions.length > 1 && all.checked ? revisions : [file];
    try {
      for (const f of targets) await api.patchFile(bucket, f.id, { filename: to });
      clearError();
      notify(`Renamed to ${to}.`);
      location.hash = route(bucket, to);
    } catch (err) {
      showError(err, "Could not rename");
      input.focus();
    }
  });
  return h("section", { class: "card", "aria-labelledby": "rename-h" }, h("h2", { id: "rename-h" }, "Rename"), form);
}

function deleteSection(bucket, name, file, revisions) {
  const one = async () => {
    const ok = await confirmAction({
      title: `Delete “${name}”?`,
      body: revisions.length > 1 ? [`Only the revision shown (uploaded ${new Date(file.uploadDate).toLocaleString()}) is deleted; ${revisions.length - 1} other revision(s) stay.`] : ["The file is deleted for good."],
      action: "Delete",
    });
    if (!ok) return;
    try {
      await api.deleteByID(bucket, file.id);
      clearError();
      notify(`Deleted ${name}.`);
      go(revisions.length > 1 ? route(bucket, name) : route(bucket));
    } catch (err) {
      showError(err, "Could not delete");
    }
  };
  const every = async () => {
    const ok = await confirmAction({
      title: `Delete all ${revisions.length} revisions of “${name}”?`,
      body: ["Every revision of this name is deleted for good."],
      action: "Delete all",
    });
    if (!ok) return;
    try {
      await api.deleteByName(bucket, name);
      clearError();
      notify(`Deleted every revision of ${name}.`);
      location.hash = route(bucket);
    } catch (err) {
      showError(err, "Could not delete");
    }
  };
  return h(
    "section",
    { class: "card danger-zone", "aria-labelledby": "delete-h" },
    h("h2", { id: "delete-h" }, "Delete"),
    h(
      "p",
      { class: "buttons" },
      h("button", { type: "button", class: "danger", id: "delete-one", onclick: one }, revisions.length > 1 ? "Delete this revision…" : "Delete file…"),
      revisions.length > 1 ? h("button", { type: "button", class: "danger", id: "delete-all", onclick: every }, "Delete all revisions…") : null,
    ),
  );
}

// Shows hash with fresh data: setting the hash it already has fires no
// hashchange, so that case asks for one.
function go(hash) {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent("hashchange"));
  else location.hash = hash;
}
