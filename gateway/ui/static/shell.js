// The page around every view: title, breadcrumbs, the error banner, status
// messages and the confirmation dialog.

import { h, fill, errorText } from "./dom.js";

const $ = (id) => document.getElementById(id);

/** Sets the document title and the breadcrumb trail [{label, href}]; the last is the current page. */
export function setPage(title, crumbs) {
  document.title = title ? `${title} · gridfsd` : "gridfsd";
  fill(
    $("crumbs"),
    crumbs.map((c, i) =>
      h("li", {}, i === crumbs.length - 1 ? h("span", { "aria-current": "page" }, c.label) : h("a", { href: c.href }, c.label)),
    ),
  );
}

/** Shows an error in the banner, which screen readers announce. */
export function showError(err, context) {
  if (err?.name === "AbortError") return;
  const banner = $("error");
  fill(
    banner,
    h("p", {}, h("strong", {}, context ? `${context}: ` : "Error: "), errorText(err)),
    h("button", { type: "button", class: "link", onclick: clearError }, "Dismiss"),
  );
  banner.hidden = false;
}

export function clearError() {
  const banner = $("error");
  banner.hidden = true;
  banner.replaceChildren();
}

/** A short success message in the polite live region. */
export function notify(text) {
  const region = $("status");
  const item = h("p", { class: "toast" }, text);
  region.append(item);
  // Only the latest few stay on screen, where they may cover content.
  while (region.children.length > 2) region.firstElementChild.remove();
  setTimeout(() => item.remove(), 4000);
}

/**
 * Asks before a destructive action. With typed set, the user must type
 * that text to enable the button. Resolves to true when confirmed.
 */
export function confirmAction({ title, body, action, typed }) {
  const dialog = $("confirm");
  const ok = $("confirm-ok");
  const input = $("confirm-input");
  const typedBox = $("confirm-typed");
  fill($("confirm-title"), title);
  fill($("confirm-body"), ...(Array.isArray(body) ? body : [body]).map((p) => (p instanceof Node ? p : h("p", {}, p))));
  fill(ok, action);
  typedBox.hidden = !typed;
  input.value = "";
  input.required = !!typed;
  ok.disabled = !!typed;
  if (typed) {
    fill(typedBox.querySelector("label"), "Type ", h("code", {}, typed), " to confirm");
    input.oninput = () => {
      ok.disabled = input.value !== typed;
    };
  }
  dialog.returnValue = "";
  dialog.showModal();
  (typed ? input : $("confirm-cancel")).focus();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
  });
}
