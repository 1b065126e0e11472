// Previews by content type: images inline, audio and video players whose
// src is the gateway URL (the browser's range requests make seeking work),
// the first 64 KiB of text and JSON, and a download link for the rest.
// With a token set, media and links use signed URLs (see api.js).

import * as api from "./api.js";
import { h, fill, formatBytes, errorText } from "./dom.js";
import { liveLink } from "./links.js";

const textMax = 64 * 1024;

const textTypes = new Set([
  "application/json",
  "application/ld+json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/csv",
  "image/svg+xml", // shown as an image below; listed so it is never "binary"
]);

/** kind of a media type: image, video, audio, json, text or other. */
export function kindOf(contentType) {
  const type = (contentType || "").split(";")[0].trim().toLowerCase();
  if (type.startsWith("image/")) return "image";
  if (type.startsWith("video/")) return "video";
  if (type.startsWith("audio/")) return "audio";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type.startsWith("text/") || type.endsWith("+xml") || textTypes.has(type)) return "text";
  return "other";
}

/** Shows a preview of file by its served type (a promise of the Content-Type). */
export async function renderPreview(section, bucket, file, served, signal) {
  const body = h("div", { class: "preview-body" }, h("p", { class: "muted" }, "Loading preview…"));
  section.append(body);
  try {
    const type = await served;
    await show(body, bucket, file, type, signal);
  } catch (err) {
    if (err.name === "AbortError") return;
    fill(body, h("p", { class: "error-text" }, `No preview: ${errorText(err)}`), downloadLink(bucket, file));
  }
}

async function show(body, bucket, file, type, signal) {
  const name = file.filename;
  const kind = kindOf(type);
  switch (kind) {
    case "image": {
      const img = h("img", { src: await api.mediaURL(bucket, file), alt: `Preview of ${name}`, decoding: "async" });
      img.addEventListener("error", () => fill(body, h("p", {}, "The browser cannot show this image."), downloadLink(bucket, file)), { once: true });
      fill(body, img);
      return;
    }
    case "video":
    case "audio": {
      // WebM, Ogg and MP4 hold audio, video or both, and a name's extension
      // does not say which (Go maps .webm to audio/webm): a <video> plays
      // either, and shrinks to its controls once it knows there is no picture.
      const tag = kind === "audio" && !/^audio\/(webm|ogg|mp4)\b/i.test(type) ? "audio" : "video";
      let minted = Date.now();
      const media = h(tag, { src: await api.mediaURL(bucket, file), controls: true, preload: "metadata", id: "player", "aria-label": `Player: ${name}` });
      media.addEventListener("loadedmetadata", () => media.classList.toggle("audio-only", tag === "video" && media.videoWidth === 0));
      const failed = () => fill(body, h("p", {}, `The browser cannot play this ${kind} format.`), downloadLink(bucket, file));
      media.addEventListener("error", async () => {
        // A player asks for ranges as long as it plays, and a signed URL
        // expires: once it may have, mint a new one and go on from where
        // playback was. A fresh URL that fails means the format.
        if (!api.linksExpire() || Date.now() - minted < api.signedLife / 2) return failed();
        const at = media.currentTime;
        const playing = !media.paused;
        try {
          minted = Date.now();
          media.src = await api.mediaURL(bucket, file);
          media.addEventListener("loadedmetadata", () => {
            media.currentTime = at;
            if (playing) media.play().catch(() => {});
          }, { once: true });
        } catch (err) {
          fill(body, h("p", { class: "error-text" }, `Cannot play: ${errorText(err)}`), downloadLink(bucket, file));
        }
      });
      fill(body, media, h("p", {}, downloadLink(bucket, file)));
      return;
    }
    case "json":
    case "text": {
      const { bytes, truncated } = await api.readStart(bucket, file, textMax, signal);
      let text = new TextDecoder("utf-8").decode(bytes);
      if (kind === "json" && !truncated) {
        try {
          text = JSON.stringify(JSON.parse(text), null, 2);
        } catch {
          // Not valid JSON after all: show it as it is.
        }
      }
      fill(
        body,
        h("pre", { class: "text-preview", tabindex: "0", "aria-label": `Contents of ${name}` }, text || "(empty file)"),
        truncated ? h("p", { class: "muted" }, `Showing the first ${formatBytes(bytes.length)} of ${formatBytes(file.length)}. `, downloadLink(bucket, file)) : null,
      );
      return;
    }
    default:
      fill(body, h("p", {}, `No preview for this type of file (${type || "unknown type"}). `, downloadLink(bucket, file)));
  }
}

function downloadLink(bucket, file) {
  const a = h("a", { href: api.idURL(bucket, file.id, { download: true }), download: "" }, `Download ${file.filename} (${formatBytes(file.length)})`);
  return liveLink(a, () => api.downloadURL(bucket, file));
}
