// The token field in the page header. The token is kept by api.js in
// sessionStorage (this tab, until the browser session ends) and sent on
// every request; without one the UI shows what anonymous users may see.
// GET /auth tells whether the gateway checks tokens at all: where it does
// not, the field is hidden, since a token would change nothing.

import { authStatus, getToken, setToken } from "./api.js";
import { notify } from "./shell.js";

const $ = (id) => document.getElementById(id);

/** Wires the header's token form; views reload when the token changes (app.js). */
export function initToken() {
  const form = $("token-form");
  const input = $("token");
  const forget = $("token-forget");
  const who = $("token-who");
  const state = $("token-state");
  // The gateway's last answer: null until it comes, or when it cannot be had.
  let info = null;
  // Each token change asks /auth again; an answer about an older token,
  // arriving late, must not overwrite the newer one's.
  let asked = 0;

  const show = () => {
    const set = getToken() !== "";
    form.dataset.set = String(set);
    forget.hidden = !set;
    input.placeholder = set ? "saved" : "not set";
    state.textContent = set
      ? "A token is saved for this browser tab and sent with every request. Enter another to replace it."
      : "No token: you see what anonymous users may see.";
    let text = "";
    let verdict = "";
    if (set && info?.enabled) {
      verdict = info.authenticated ? "ok" : "refused";
      text = info.authenticated ? `Signed in as ${info.principal}` : "Token not accepted";
    }
    // Only a change is written, so the live region announces it once.
    if (who.textContent !== text) who.textContent = text;
    who.dataset.state = verdict;
    if (verdict === "refused") input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  };

  const check = async () => {
    const n = ++asked;
    let answer = null;
    try {
      answer = await authStatus();
    } catch {
      // An older gateway without /auth, or none reachable: offer the field,
      // as a gateway that may check tokens needs it.
    }
    if (n !== asked) return;
    info = answer;
    form.dataset.auth = !info ? "unknown" : info.enabled ? "on" : "off";
    form.hidden = info?.enabled === false;
    show();
  };

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!input.value.trim()) {
      input.focus();
      return;
    }
    info = null; // what /auth said was about the previous token
    setToken(input.value);
    // The secret does not stay on screen or in the DOM.
    input.value = "";
    show();
    notify("Token saved for this browser tab.");
    check();
  });
  forget.addEventListener("click", () => {
    info = null;
    setToken("");
    show();
    notify("Token forgotten.");
    input.focus(); // the button that had focus is hidden now
    check();
  });
  show();
  check();
}

/** Moves focus to the token field, after a request was refused for want of a token. */
export function focusToken() {
  $("token").focus();
}
