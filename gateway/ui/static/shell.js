// The page around every view: title, breadcrumbs, the error banner, status
// messages and the confirmation dialog.

import { h, fill, errorText } from "./dom.js";
import { getToken } from "./api.js";

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

/**
 * Shows an error in the banner, which screen readers announce. A refusal
 * for want of a (valid) token says so and moves focus to the token field;
 * a refusal of the token says that it may not do this.
 */
export function showError(err, context) {
  if (err?.name === "AbortError") return;
  const banner = $("error");
  const status = err?.name === "ApiError" ? err.status : 0;
  const dismiss = h("button", { type: "button", class: "link", onclick: clearError }, "Dismiss");
  if (status === 401 || status === 403) {
    let lead;
    let hint;
    if (status === 403) {
      lead = "Not allowed";
      hint = "Your token may not do this. Ask for a token with more access, or enter another one in the Token field at the top.";
    } else if (getToken()) {
      lead = "Token not accepted";
      hint = "The gateway did not accept the saved token. Enter another one in the Token field at the top, or forget it to see what anonymous users may see.";
    } else {
      lead = "Token needed";
      hint = "This needs an access token. Enter yours in the Token field at the top and press Save.";
    }
    fill(
      banner,
      h("div", { class: "error-body" }, h("p", {}, h("strong", {}, `${lead}: `), hint), h("p", { class: "error-detail" }, context ? `${context}: ` : "The gateway said: ", errorText(err))),
      dismiss,
    );
    banner.hidden = false;
    if (status === 401) $("token").focus();
    return;
  }
  fill(banner, h("p", {}, h("strong", {}, context ? `${context}: ` : "Error: "), errorText(err)), dismiss);
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
