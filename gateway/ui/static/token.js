// The token field in the page header. The token is kept by api.js in
// sessionStorage (this tab, until the browser session ends) and sent on
// every request; without one the UI shows what anonymous users may see.

import { getToken, setToken } from "./api.js";
import { notify } from "./shell.js";

const $ = (id) => document.getElementById(id);

/** Wires the header's token form; views reload when the token changes (app.js). */
export function initToken() {
  const form = $("token-form");
  const input = $("token");
  const forget = $("token-forget");
  const state = $("token-state");
  const show = () => {
    const set = getToken() !== "";
    form.dataset.set = String(set);
    forget.hidden = !set;
    input.placeholder = set ? "saved" : "not set";
    state.textContent = set
      ? "A token is saved for this browser tab and sent with every request. Enter another to replace it."
      : "No token: you see what anonymous users may see.";
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!input.value.trim()) {
      input.focus();
      return;
    }
    setToken(input.value);
    // The secret does not stay on screen or in the DOM.
    input.value = "";
    show();
    notify("Token saved for this browser tab.");
  });
  forget.addEventListener("click", () => {
    setToken("");
    show();
    notify("Token forgotten.");
    input.focus(); // the button that had focus is hidden now
  });
  show();
}

/** Moves focus to the token field, after a request was refused for want of a token. */
export function focusToken() {
  $("token").focus();
}
