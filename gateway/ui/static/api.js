// The one module that talks to the gateway. Every request, link and media
// URL the application uses is built here, so that access control can be
// added in one place: authHeaders() is where "Authorization: Bearer" goes,
// and mediaURL()/downloadURL() are asynchronous already because elements
// such as <video> and <a download> cannot send headers and will need
// short-lived signed URLs minted by the gateway.

// The UI is served at /ui/ and the API at the root above it; resolving
// against this module keeps working behind a path prefix (/x/ui/ -> /x/).
const base = new URL("../", import.meta.url);

/** An error the gateway reported, or a failure to reach it. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status; // 0 when the gateway could not be reached
    this.code = code;
  }
}

/** Headers every API request carries. Seam for access control. */
function authHeaders() {
  return {};
}

/** A same-origin URL (path and query) for an API path. */
export function url(path, query = {}) {
  const u = new URL(path.replace(/^\//, ""), base);
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== "") u.searchParams.set(k, String(v));
  }
  return u.pathname + u.search;
}

// Filenames may contain "/": each segment is escaped on its own so the
// gateway sees the same path structure, and "?", "#" and "%" stay data.
function namePath(name) {
  return name.split("/").map(encodeURIComponent).join("/");
}

function bucketPath(bucket) {
  return `/b/${encodeURIComponent(bucket)}`;
}

/**
 * The {id} path segment of /id/{bucket}/{id}: the hex of an ObjectId, else
 * the id as Extended JSON (strings quoted, so a 24-hex string id stays a
 * string). File JSON carries ids as relaxed Extended JSON.
 */
export function idParam(id) {
  if (id && typeof id === "object" && typeof id.$oid === "string") return id.$oid;
  return JSON.stringify(id);
}

/** How an id is shown to people. */
export function idText(id) {
  if (id && typeof id === "object" && typeof id.$oid === "string") return id.$oid;
  return JSON.stringify(id);
}

function idPath(bucket, id) {
  return `/id/${encodeURIComponent(bucket)}/${encodeURIComponent(idParam(id))}`;
}

/** Turns a non-2xx reply into an ApiError from the gateway's JSON error. */
function errorFrom(status, statusText, body) {
  let code = `http_${status}`;
  let message = statusText || `HTTP ${status}`;
  try {
    const doc = JSON.parse(body);
    if (doc && doc.error) {
      code = doc.error.code || code;
      message = doc.error.message || message;
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): keep the status line.
  }
  return new ApiError(status, code, message);
}

/** fetch with the auth headers; rejects with ApiError unless 2xx. */
export async function request(method, path, { query, json, headers, signal } = {}) {
  const init = { method, headers: { ...authHeaders(), ...headers }, signal };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  }
  let res;
  try {
    res = await fetch(url(path, query), init);
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiError(0, "network", `Cannot reach the gateway (${e.message}).`);
  }
  if (!res.ok) throw errorFrom(res.status, res.statusText, await res.text());
  return res;
}

async function requestJSON(method, path, opts) {
  const res = await request(method, path, opts);
  if (res.status === 204) return null;
  return res.json();
}

// Buckets

/** Every bucket: [{name, settings, files, bytes}]. */
export async function listBuckets(signal) {
  const doc = await requestJSON("GET", "/buckets", { signal });
  return Array.isArray(doc) ? doc : (doc?.buckets ?? []);
}

export function createBucket(name, settings = {}) {
  return requestJSON("PUT", `/buckets/${encodeURIComponent(name)}`, { json: settings });
}

export function dropBucket(name, force = false) {
  return requestJSON("DELETE", `/buckets/${encodeURIComponent(name)}`, { query: { force: force ? "true" : "" } });
}

// Files

/** One page of a bucket's listing, ordered by filename then upload date. */
export async function listFiles(bucket, { prefix, limit, cursor } = {}, signal) {
  const doc = await requestJSON("GET", bucketPath(bucket), { query: { prefix, limit, cursor }, signal });
  return { files: doc?.files ?? [], next: doc?.next ?? "" };
}

/**
 * Every revision of one filename, oldest first, so that the index is the
 * spec's revision number. The listing is ordered by filename, and a name
 * sorts before every longer name it prefixes, so the walk stops as soon as
 * another name appears.
 */
export async function listRevisions(bucket, name, signal) {
  const out = [];
  let cursor = "";
  for (;;) {
    const page = await listFiles(bucket, { prefix: name, limit: 1000, cursor }, signal);
    for (const f of page.files) {
      if (f.filename !== name) return out;
      out.push(f);
    }
    if (!page.next) return out;
    cursor = page.next;
  }
}

/** Link to the content by name; revision as in the spec (0 oldest, -1 newest). */
export function fileURL(bucket, name, { revision, download } = {}) {
  return url(`${bucketPath(bucket)}/${namePath(name)}`, { revision, download: download ? 1 : "" });
}

/** Link to one exact file by id. */
export function idURL(bucket, id, { download } = {}) {
  return url(idPath(bucket, id), { download: download ? 1 : "" });
}

/** src for <img>, <video>, <audio>. Seam for signed URLs. */
export async function mediaURL(bucket, file) {
  return idURL(bucket, file.id);
}

/** href of a download link. Seam for signed URLs. */
export async function downloadURL(bucket, file) {
  return idURL(bucket, file.id, { download: true });
}

/** The Content-Type the gateway serves a file with (it sniffs when none is stored). */
export async function servedType(bucket, file, signal) {
  const res = await request("HEAD", idPath(bucket, file.id), { signal });
  return res.headers.get("Content-Type") || "";
}

/**
 * The first bytes of a file, with a Range request so a large file costs
 * only what is shown. Resolves to {bytes: Uint8Array, truncated}.
 */
export async function readStart(bucket, file, max, signal) {
  if (file.length === 0) return { bytes: new Uint8Array(0), truncated: false };
  const res = await request("GET", idPath(bucket, file.id), {
    headers: { Range: `bytes=0-${max - 1}` },
    signal,
  });
  const bytes = new Uint8Array(await res.arrayBuffer()).subarray(0, max);
  return { bytes, truncated: file.length > bytes.length };
}

/** Rename and/or replace the metadata of one file. */
export function patchFile(bucket, id, changes) {
  return requestJSON("PATCH", idPath(bucket, id), { json: changes });
}

export function deleteByID(bucket, id) {
  return requestJSON("DELETE", idPath(bucket, id));
}

/** Deletes every revision of name. */
export function deleteByName(bucket, name) {
  return requestJSON("DELETE", `${bucketPath(bucket)}/${namePath(name)}`);
}

/**
 * Streams blob to PUT /b/{bucket}/{name}. XMLHttpRequest, not fetch,
 * because only it reports upload progress. onProgress(loaded, total) is
 * called as bytes leave the browser. Returns {done, abort}: done resolves
 * to the stored file's JSON and rejects with ApiError, or with a
 * DOMException named "AbortError" after abort().
 */
export function upload(bucket, name, blob, { onProgress } = {}) {
  const xhr = new XMLHttpRequest();
  const done = new Promise((resolve, reject) => {
    xhr.open("PUT", url(`${bucketPath(bucket)}/${namePath(name)}`));
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    if (blob.type) xhr.setRequestHeader("Content-Type", blob.type);
    xhr.upload.addEventListener("progress", (e) => {
      onProgress?.(e.loaded, e.lengthComputable ? e.total : blob.size);
    });
    xhr.addEventListener("load", () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText));
        } catch {
          resolve(null);
        }
      } else {
        reject(errorFrom(xhr.status, xhr.statusText, xhr.responseText));
      }
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, "network", "The upload failed: the connection to the gateway broke.")));
    xhr.addEventListener("abort", () => reject(new DOMException("Upload cancelled", "AbortError")));
    xhr.send(blob);
  });
  return { done, abort: () => xhr.abort() };
}
