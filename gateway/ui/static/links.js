// Links whose href may be a signed URL, which expires: minted when the link
// is drawn, and asked for again whenever the user points at or focuses it,
// which mints a new one once the old has lived half its life (api.js keeps
// the fresh ones). Without a token the href is the plain URL.

/** Sets a.href from mint(), now and before each use; returns a. */
export function liveLink(a, mint) {
  const refresh = async () => {
    try {
      a.href = await mint();
    } catch {
      // Keep the href it has: following it shows the gateway's own error.
    }
  };
  refresh();
  a.addEventListener("pointerenter", refresh);
  a.addEventListener("focus", refresh);
  return a;
}
