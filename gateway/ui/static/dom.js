// Small DOM and formatting helpers. Elements are built with h(), never from
// HTML strings, so filenames and metadata can never become markup.

/**
 * h("a", {href: "#/", class: "x", onclick: fn}, "text", child, [more])
 * Attributes starting with "on" become listeners; false/null/undefined
 * attributes and children are left out; true attributes are set empty.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith("on") && typeof v === "function") {
      el.addEventListener(k.slice(2), v);
    } else if (k === "dataset") {
      Object.assign(el.dataset, v);
    } else if (k in el && typeof v !== "string" && k !== "list") {
      el[k] = v; // properties such as value, checked, max
    } else {
      el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

/** Replaces the children of el. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

/** 1536 -> "1.5 KiB" (binary units, as GridFS chunk sizes are). */
export function formatBytes(n) {
  if (!Number.isFinite(n)) return "–";
  if (Math.abs(n) < 1024) return `${n} B`;
  let v = n;
  let i = -1;
  do {
    v /= 1024;
    i++;
  } while (Math.abs(v) >= 1024 && i < units.length - 1);
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** A size as <data value="exact bytes">human</data>, exact in its tooltip. */
export function sizeEl(n) {
  return h("data", { value: String(n), title: `${Number(n).toLocaleString()} bytes` }, formatBytes(n));
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** An RFC 3339 date as <time>. */
export function timeEl(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return h("span", {}, iso ?? "–");
  return h("time", { datetime: d.toISOString(), title: d.toISOString() }, dateFormat.format(d));
}

/** "1.2 MiB/s" from bytes and seconds. */
export function formatRate(bytes, seconds) {
  if (seconds <= 0) return "";
  return `${formatBytes(Math.round(bytes / seconds))}/s`;
}

/** A message for any error: the gateway's code and message when it sent one. */
export function errorText(err) {
  if (err && err.name === "ApiError") {
    return err.status ? `${err.message} (${err.status} ${err.code})` : err.message;
  }
  return err?.message ? String(err.message) : String(err);
}
