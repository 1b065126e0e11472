// Hash router: #/ buckets, #/b/{bucket}?prefix=&sort= files,
// #/b/{bucket}/f/{name}?rev=N one file. Each segment is URI-encoded, so
// names with "/" or "?" stay one segment.

import { clearError, showError } from "./shell.js";
import { renderBuckets } from "./buckets.js";
import { renderFiles } from "./files.js";
import { renderFile } from "./file.js";
import { initToken } from "./token.js";

const main = document.getElementById("main");
let current = null; // AbortController of the view on screen

function parse(hash) {
  const raw = hash.replace(/^#/, "");
  const [path, qs = ""] = raw.split("?", 2);
  const query = Object.fromEntries(new URLSearchParams(qs));
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "b" && parts.length === 2) return { view: renderFiles, params: { bucket: parts[1], ...query } };
  if (parts[0] === "b" && parts.length === 4 && parts[2] === "f") {
    return { view: renderFile, params: { bucket: parts[1], name: parts[3], ...query } };
  }
  return { view: renderBuckets, params: query };
}

async function navigate({ focus = true } = {}) {
  // The skip link is a plain in-page anchor; it is not a route.
  if (location.hash && !location.hash.startsWith("#/")) return;
  current?.abort();
  current = new AbortController();
  clearError();
  let target;
  try {
    target = parse(location.hash);
  } catch {
    target = { view: renderBuckets, params: {} }; // a malformed %-escape
  }
  main.replaceChildren();
  main.setAttribute("aria-busy", "true");
  // A view puts its heading in place before it awaits any data, so focus
  // moves now: moving it once the data is in would snatch it from a field
  // the user has started typing in. Focus on the new heading tells keyboard
  // and screen-reader users that the page changed, as a page load would.
  const rendered = target.view(main, target.params, current.signal);
  if (focus) main.querySelector("h1")?.focus();
  try {
    await rendered;
  } catch (err) {
    showError(err);
  } finally {
    main.removeAttribute("aria-busy");
  }
}

document.getElementById("skip").addEventListener("click", (e) => {
  e.preventDefault();
  main.focus();
});

// A file dropped outside a drop zone would make the browser navigate to it.
for (const type of ["dragover", "drop"]) {
  window.addEventListener(type, (e) => {
    if (!e.defaultPrevented) e.preventDefault();
  });
}

window.addEventListener("hashchange", () => navigate());
// A new token (or none) may see other buckets and files: show the view
// again with it, leaving focus in the header where the user is.
window.addEventListener("gridfsd:token", () => navigate({ focus: false }));
initToken();
navigate({ focus: false });
