// A bucket's lifecycle rules (docs/API.md, "Expiry and lifecycle"): shown as
// a table, edited as the JSON list PUT /buckets/{bucket} takes.

import * as api from "./api.js";
import { h, fill, errorText } from "./dom.js";
import { notify } from "./shell.js";

const describe = (r) =>
  [
    r.expireAfter ? `files expire ${r.expireAfter} after upload` : null,
    r.expireDate ? `files expire on ${new Date(r.expireDate).toLocaleString()}` : null,
    r.keepRevisions ? `keep the newest ${r.keepRevisions} revisions` : null,
    r.expireOldRevisionsAfter ? `older revisions expire ${r.expireOldRevisionsAfter} after the next one` : null,
    r.abortUnfinishedAfter ? `unfinished uploads aborted after ${r.abortUnfinishedAfter}` : null,
    r.tags && r.tags.length ? `only files tagged ${r.tags.map((t) => `${t.key}=${t.value}`).join(", ")}` : null,
  ]
    .filter(Boolean)
    .join("; ");

/** The lifecycle card of a bucket's page. */
export function lifecyclePanel(bucket, signal) {
  const table = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const text = h("textarea", { id: "lifecycle-rules", name: "lifecycle", rows: "6", spellcheck: "false", class: "code" });
  const status = h("p", { class: "muted", role: "status" });
  let settings = {};
  const show = (rules, keepText = false) => {
    if (!keepText) text.value = JSON.stringify(rules, null, 2);
    if (!rules.length) {
      fill(table, h("p", { class: "muted" }, "No rules: files expire only by their own expiry."));
      return;
    }
    fill(
      table,
      h(
        "table",
        { class: "grid lifecycle" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Rule"), h("th", { scope: "col" }, "Names starting with"), h("th", { scope: "col" }, "What happens"))),
        h(
          "tbody",
          {},
          rules.map((r) =>
            h(
              "tr",
              { dataset: { rule: r.id } },
              h("td", { "data-label": "Rule" }, r.id, r.disabled ? h("span", { class: "muted" }, " (disabled)") : null),
              h("td", { "data-label": "Names starting with" }, r.prefix ? h("code", {}, r.prefix) : h("span", { class: "muted" }, "every file")),
              h("td", { "data-label": "What happens" }, describe(r)),
            ),
          ),
        ),
      ),
    );
  };
  // Read when the card is first opened: the settings are an admin's
  // concern, and a reader of a public bucket, who may not list buckets,
  // should not meet a refusal on every page of it.
  // What the user typed before the rules arrived is kept; a save waits
  // for them, since it sends the bucket's other settings as they are.
  let loaded = Promise.resolve();
  const load = () =>
    (loaded = api.listBuckets(signal).then(
      (list) => {
        settings = list.find((b) => b.name === bucket)?.settings ?? {};
        show(settings.lifecycle ?? [], text.value !== "");
      },
      (err) => fill(table, h("p", { class: "error-text" }, errorText(err))),
    ));
  const form = h(
    "form",
    { class: "stack" },
    h(
      "div",
      { class: "field" },
      h("label", { for: "lifecycle-rules" }, "Rules as JSON ", h("span", { class: "muted" }, '(e.g. [{"prefix": "tmp/", "expireAfter": "7d"}, {"keepRevisions": 3}]; [] removes them)')),
      text,
    ),
    h("div", {}, h("button", { type: "submit", id: "save-lifecycle" }, "Save rules")),
    status,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    let rules;
    try {
      rules = JSON.parse(text.value || "[]");
    } catch (err) {
      fill(status, h("span", { class: "error-text" }, `Not JSON: ${err.message}`));
      return;
    }
    await loaded;
    try {
      // PUT /buckets replaces the other settings too: send them as they are.
      const { lifecycle: _old, ...rest } = settings;
      const saved = await api.createBucket(bucket, { ...rest, lifecycle: rules });
      settings = saved?.settings ?? settings;
      show(settings.lifecycle ?? []);
      fill(status, "Saved.");
      notify(`Saved the lifecycle rules of ${bucket}.`);
    } catch (err) {
      fill(status, h("span", { class: "error-text" }, errorText(err)));
    }
  });
  const details = h("details", {}, h("summary", {}, h("h2", { id: "lifecycle-h", style: "display:inline" }, "Lifecycle rules")), table, form);
  details.addEventListener("toggle", () => details.open && load(), { once: true });
  return h("section", { class: "card", "aria-labelledby": "lifecycle-h" }, details);
}
