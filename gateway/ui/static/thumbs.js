// Thumbnails in the file list: small images only, scaled down by the
// browser from the original, fetched when their row comes near the screen.
// With a token set, each comes from a signed URL (an <img> cannot send the
// token), minted only for the rows that are shown.

import * as api from "./api.js";
import { h } from "./dom.js";

/** Images larger than this get an icon, not a thumbnail: a row must not cost megabytes. */
export const thumbMax = 1024 * 1024;

// Extensions the gateway serves as images when no type is stored (Go's
// mime.TypeByExtension), so untyped images get a thumbnail too.
const imageExtensions = new Set(["png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "bmp", "ico"]);

function extension(name) {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const i = base.lastIndexOf(".");
  return i > 0 ? base.slice(i + 1).toLowerCase() : "";
}

/** Whether file is an image the browser can show, as stored or as served. */
export function isImage(file) {
  if (file.contentType) return file.contentType.trim().toLowerCase().startsWith("image/");
  return imageExtensions.has(extension(file.filename));
}

/** A small icon: a folder, or a file labelled with its extension. */
export function iconFor(kind, name = "") {
  if (kind === "folder") return h("span", { class: "icon icon-folder", "aria-hidden": "true" });
  const ext = extension(name).slice(0, 4).toUpperCase();
  return h("span", { class: "icon icon-file", "aria-hidden": "true" }, ext);
}

/**
 * The thumbnails of one listing: cell(file) makes a row's first cell,
 * watch(root) starts loading those that come into view, reset() forgets the
 * rows of a listing that is redrawn. Everything stops when signal aborts.
 */
export function thumbnailer(bucket, signal) {
  const files = new WeakMap(); // img -> file
  let observer = null;
  const load = async (img) => {
    try {
      const src = await api.mediaURL(bucket, files.get(img));
      if (!signal.aborted) img.src = src;
    } catch {
      img.replaceWith(iconFor("file", files.get(img).filename));
    }
  };
  const reset = () => {
    observer?.disconnect();
    observer = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          if (!e.isIntersecting) continue;
          observer.unobserve(e.target);
          load(e.target);
        }
      },
      { rootMargin: "200px" },
    );
  };
  signal.addEventListener("abort", () => observer?.disconnect());
  reset();
  return {
    reset,
    cell(file) {
      if (file.length === 0 || file.length > thumbMax || !isImage(file)) return iconFor("file", file.filename);
      const img = h("img", { class: "thumb", alt: "", width: "40", height: "40", decoding: "async", dataset: { thumb: file.filename } });
      img.addEventListener("error", () => img.replaceWith(iconFor("file", file.filename)), { once: true });
      files.set(img, file);
      return img;
    },
    watch(root) {
      for (const img of root.querySelectorAll("img.thumb:not([src])")) observer.observe(img);
    },
  };
}
