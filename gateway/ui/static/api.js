// The one module that talks to the gateway. Every request, link and media
// URL the application uses is built here, and so is access control: the
// token the user entered goes on every request as "Authorization: Bearer"
// (authHeaders), and media elements and links, which a browser fetches
// without custom headers, get short-lived signed URLs minted by the gateway
// for the token's holder (mediaURL, downloadURL, linkURL).

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

// The token lives in sessionStorage: it survives a reload of the tab but
// not the browser session, and never goes into localStorage, a URL or a
// cookie. When storage is unavailable (some private modes) it lives in
// this module until the page goes.
const tokenKey = "gridfsd.token";
let memoryToken = "";

/** The bearer token the user entered, or "". */
export function getToken() {
  try {
    return sessionStorage.getItem(tokenKey) ?? "";
  } catch {
    return memoryToken;
  }
}

/**
 * Keeps secret as the token for this browser session ("" forgets it) and
 * fires "gridfsd:token" on window so that views reload with it.
 */
export function setToken(secret) {
  const value = (secret ?? "").trim();
  memoryToken = value;
  signed.clear(); // URLs minted for the old token carry its rights, not the new one's
  signingOff = false;
  authAnswer = null;
  try {
    if (value) sessionStorage.setItem(tokenKey, value);
    else sessionStorage.removeItem(tokenKey);
  } catch {
    // Storage refused: the token lives in memoryToken.
  }
  window.dispatchEvent(new Event("gridfsd:token"));
}

/** Headers every API request carries. */
function authHeaders() {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
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

// Access control

// GET /auth's answer for the current token, shared by the header and the
// views that word things by it; setToken forgets it.
let authAnswer = null;

/**
 * What the gateway says about access control and the current token:
 * {enabled, signing, principal, authenticated, doors}. GET /auth needs no token
 * and answers 200 for a wrong one (authenticated: false). Asked once per
 * token; a failure is asked again next time.
 */
export function authStatus() {
  if (!authAnswer) {
    const asked = requestJSON("GET", "/auth");
    authAnswer = asked;
    asked.catch(() => {
      if (authAnswer === asked) authAnswer = null;
    });
  }
  return authAnswer;
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

/**
 * One page of a bucket's listing, ordered by filename then upload date.
 * With a delimiter, one folder level: the names under prefix that hold it
 * come back rolled up into prefixes (folders).
 */
export async function listFiles(bucket, { prefix, limit, cursor, delimiter } = {}, signal) {
  const doc = await requestJSON("GET", bucketPath(bucket), { query: { prefix, limit, cursor, delimiter }, signal });
  return { files: doc?.files ?? [], prefixes: doc?.prefixes ?? [], next: doc?.next ?? "" };
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

// Signed URLs

/** How long the signed URLs the UI mints stay valid (a Go duration for POST /sign). */
export const signedLife = 10 * 60 * 1000;
const signedLifeText = "10m";

// Minted URLs by path, reused while at least half their life is left, so a
// file page with a player and several links asks the gateway once per path.
// An entry holds the promise, so callers at the same moment share one mint.
const signed = new Map(); // path -> {minted: Promise<url>, expires: ms}
// Set once the gateway said it cannot sign, so that it is asked once per token.
let signingOff = false;

/**
 * A URL that lets a browser GET path (an API path such as /id/media/…)
 * with query without a token: minted by POST /sign for the current token.
 * The signature covers the method, the path and every query parameter, so
 * the query is part of what is signed, never appended. Without a token it
 * is the plain URL, which works for anonymous readers.
 */
async function signedURL(path, query = {}) {
  if (!getToken() || signingOff) return url(path, query);
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const target = q.toString() ? `${path}?${q}` : path;
  let hit = signed.get(target);
  if (!hit || hit.expires - Date.now() < signedLife / 2) {
    // Counted from the local clock when asked, so a skewed clock in the
    // browser does not keep an expired URL in use.
    const entry = { expires: Date.now() + signedLife };
    entry.minted = requestJSON("POST", "/sign", { json: { method: "GET", path: target, expires: signedLifeText } }).then(
      (doc) => doc.url,
      (err) => {
        // A gateway without a signing key (or without access control,
        // where a token changes nothing) cannot sign: the plain URL is the
        // best there is, and works wherever anonymous reading does.
        if (err.code === "signing_disabled") {
          signingOff = true;
          return null;
        }
        if (signed.get(target) === entry) signed.delete(target);
        throw err;
      },
    );
    signed.set(target, entry);
    hit = entry;
  }
  const minted = await hit.minted;
  if (minted === null) return url(path, query);
  // The gateway answers with its own path; url() puts it under the prefix
  // the UI is served behind, as for every other request.
  const [signedPath, signedQuery] = minted.split("?", 2);
  const u = new URL(url(signedPath), location.href);
  u.search = signedQuery;
  return u.pathname + u.search;
}

/** Whether the URLs below are signed (a token is set), so they expire. */
export function linksExpire() {
  return getToken() !== "";
}

/** src for <img>, <video>, <audio>: signed when a token is set. */
export function mediaURL(bucket, file) {
  return signedURL(idPath(bucket, file.id), {});
}

/** href of a download link: signed when a token is set. */
export function downloadURL(bucket, file) {
  return signedURL(idPath(bucket, file.id), { download: 1 });
}

/** href of a link to the content by name (revision as in fileURL), signed when a token is set. */
export function nameLinkURL(bucket, name, { revision, download } = {}) {
  return signedURL(`${bucketPath(bucket)}/${namePath(name)}`, { revision, download: download ? 1 : "" });
}

/** href of a link to one file by id, signed when a token is set. */
export function idLinkURL(bucket, id) {
  return signedURL(idPath(bucket, id), {});
}

/**
 * The Content-Type the gateway serves a file with (it derives one from the
 * name, else sniffs the first bytes, when none is stored). A GET of the
 * first byte: HEAD reads no content, so it cannot sniff. An empty file has
 * no byte to ask for, and costs nothing whole.
 */
export async function servedType(bucket, file, signal) {
  const headers = file.length > 0 ? { Range: "bytes=0-0" } : {};
  const res = await request("GET", idPath(bucket, file.id), { headers, signal });
  await res.arrayBuffer();
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
export function upload(bucket, name, blob, { onProgress, expires } = {}) {
  const xhr = new XMLHttpRequest();
  const done = new Promise((resolve, reject) => {
    xhr.open("PUT", url(`${bucketPath(bucket)}/${namePath(name)}`));
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    if (blob.type) xhr.setRequestHeader("Content-Type", blob.type);
    // A date or a delay such as 72h (X-Gridfs-Expires, docs/API.md).
    if (expires) xhr.setRequestHeader("X-Gridfs-Expires", expires);
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

// Resumable uploads (tus, /uploads/{bucket}/), when the gateway serves them
// and tus-js-client (vendor/, window.tus) is loaded: an upload survives a
// dropped connection or a gateway restart (retried, and resumed from the
// offset the gateway stored) and a page reload (choosing the same file again
// resumes it: tus-js-client remembers its URL in localStorage).
/** Whether the gateway serves resumable uploads (GET /auth lists its doors). */
export async function resumableAvailable() {
  if (!window.tus?.isSupported) return false;
  try {
    return (await authStatus()).doors?.includes("/uploads/") ?? false;
  } catch {
    return false;
  }
}

// PATCHes of 8 MiB: what a cut PATCH can lose when a gateway stops before
// storing it, and a request size proxies accept.
const resumableChunk = 8 << 20;

/**
 * Uploads blob as the file name of bucket through tus, as upload does
 * through PUT: {done, abort}; done resolves to {filename, id, location}.
 * A cancelled upload is terminated (its bytes removed).
 */
export function uploadResumable(bucket, name, blob, { onProgress, onRetry, expires } = {}) {
  let upload;
  let settle;
  const done = new Promise((resolve, reject) => {
    settle = { resolve, reject };
    upload = new window.tus.Upload(blob, {
      endpoint: url(`/uploads/${encodeURIComponent(bucket)}/`),
      headers: authHeaders(),
      metadata: { filename: name, ...(blob.type ? { filetype: blob.type } : {}), ...(expires ? { expires } : {}) },
      chunkSize: resumableChunk,
      retryDelays: [0, 1000, 2000, 3000, 5000, 8000, 13000, 21000],
      removeFingerprintOnSuccess: true,
      // The same file sent to another name is another upload.
      fingerprint: (file) => Promise.resolve(["gridfsd", bucket, name, file.size, file.lastModified].join("/")),
      onProgress: (loaded, total) => onProgress?.(loaded, total),
      onShouldRetry: (err, attempt) => {
        onRetry?.(attempt);
        const status = err?.originalResponse?.getStatus?.() ?? 0;
        return status === 0 || status === 409 || status === 423 || status >= 500;
      },
      onSuccess: (payload) => {
        const res = payload?.lastResponse;
        resolve({ filename: name, id: res?.getHeader("X-Gridfs-Id") ?? null, location: res?.getHeader("X-Gridfs-Location") ?? null });
      },
      onError: (err) => {
        const res = err?.originalResponse;
        // tus errors are plain text ("ERR_…: message").
        reject(res ? errorFrom(res.getStatus(), (res.getBody() || "").trim(), res.getBody()) : new ApiError(0, "network", `The upload failed: ${err.message}`));
      },
    });
    // A file chosen again after a reload continues where it stopped.
    upload.findPreviousUploads().then((previous) => {
      if (previous.length) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    }, () => upload.start());
  });
  const abort = () => {
    upload.abort(true).catch(() => {});
    settle.reject(new DOMException("Upload cancelled", "AbortError"));
  };
  return { done, abort };
}
