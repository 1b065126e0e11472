// Links between views. Each segment is URI-encoded, so a filename with "/"
// or "?" stays one segment of the hash.

/** The hash of a view: route() buckets, route(b) files, route(b, name) one file. */
export function route(bucket, name, query = {}) {
  let path = "#/";
  if (bucket !== undefined) path += `b/${encodeURIComponent(bucket)}`;
  if (name !== undefined) path += `/f/${encodeURIComponent(name)}`;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const qs = q.toString();
  return qs ? `${path}?${qs}` : path;
}
