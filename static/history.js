// The history manager changes messages through the REST API, as the chat page does (one way in
// per action, the same checks and errors); the rows are then read again with a line saying what
// happened and, for an edit or a delete, an Undo. Addresses come from {% url %} in data-*.
// Rows read as the chat page's messages: the same Markdown and sanitizer (chat/render.js), long
// ones clamped with "more"; on a phone their actions sit in a ⋯ menu (history_menu.js).
import {renderAll} from "./chat/render.js";
import {historyMenuClose, historyMenuWire} from "./history_menu.js";
import {api, refusal} from "./rest.js";

const rows = document.getElementById("history-rows");
const NOTICE_MS = 6000;  // a plain "done" line; one with Undo lasts the server's undo window
let noticeTimer = null;

// `at`: where the action happened, {index, removed}: the notice sits there in the list.
function notice(text, {error = false, undo = null, at = null} = {}) {
  const box = document.createElement(error ? "p" : "div");
  box.className = error ? "notice error" : "notice";
  // An error is an alert as it appears; a plain line is said by the page's own live region
  // (#history-said), which a screen reader is already listening to.
  if (error) box.setAttribute("role", "alert");
  box.dataset.testid = "history-notice";
  const span = document.createElement("span");
  span.textContent = text;
  box.append(span);
  if (undo) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.dataset.testid = "history-undo";
    button.textContent = rows.dataset.undoLabel;
    button.addEventListener("click", async () => {
      const back = at && {index: at.index, removed: false};
      const r = await api("POST", rows.dataset.undoUrl, {token: undo});
      if (!r.ok) { show(await refusal(r), {error: true, at: back}); return; }
      await refresh(rows.dataset.undone, {at: back});
    });
    box.append(" ", button);
  }
  const close = document.createElement("button");
  close.type = "button";
  close.className = "notice-close";
  close.textContent = "✕";
  close.setAttribute("aria-label", rows.dataset.closeLabel || "Close");
  close.addEventListener("click", () => {
    const next = box.nextElementSibling;
    box.remove();
    const more = next && next.querySelector("[data-testid=history-more]");
    if (more && more.offsetParent) more.focus({preventScroll: true});
  });
  box.append(close);
  return box;
}

// The notice sits in the list where the action happened (under the changed row, or in the
// place of a deleted one), in the flow: the reader sees what happened and its Undo where their
// thumb is, and it covers no row (a bar fixed at the bottom of the screen hid the rows under
// it for the whole undo window). Without a place (a search, a page turn) it opens the list.
function noticePlace(box, at) {
  const row = at && rows.querySelector(`#line-${at.index}`);
  const list = rows.querySelector(".history-list");
  if (row && at.removed) row.before(box);
  else if (row) row.after(box);
  else if (at && at.removed && list) list.append(box);
  else rows.prepend(box);
}

function show(text, {seconds = null, at = null, ...options} = {}) {
  rows.querySelectorAll(".notice").forEach(n => n.remove());
  clearTimeout(noticeTimer);
  const box = notice(text, {at, ...options});
  noticePlace(box, at);
  box.scrollIntoView({block: "nearest"});
  if (!options.error) {
    const said = document.getElementById("history-said");
    if (said) { said.textContent = ""; said.textContent = text; }
    noticeTimer = setTimeout(() => box.remove(), seconds ? seconds * 1000 : NOTICE_MS);
  }
  const undo = box.querySelector("[data-testid=history-undo]");
  if (undo) undo.focus({preventScroll: true});
}

// Rows from the server (the page, a search, a page turn) read as the chat page's messages, and
// a message longer than its clamp offers "more".
function rowsAdopt() {
  renderAll(rows);
  for (const text of rows.querySelectorAll(".history-row > .text.md:not([data-clamp])")) {
    text.dataset.clamp = "1";
    if (text.scrollHeight <= text.clientHeight + 4) continue;
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "clamp-toggle";
    toggle.dataset.testid = "history-row-more";
    toggle.setAttribute("aria-expanded", "false");
    toggle.textContent = rows.dataset.more || "more";
    toggle.addEventListener("click", () => {
      const expanded = text.classList.toggle("expanded");
      toggle.setAttribute("aria-expanded", String(expanded));
      toggle.textContent = expanded ? rows.dataset.less || "less" : rows.dataset.more || "more";
    });
    text.after(toggle);
  }
}

// The page the reader was on, read again from the file.
async function refresh(text, options) {
  const state = rows.querySelector("[data-page-state]");
  const query = new URLSearchParams(state ? {session: state.dataset.session, page: state.dataset.page,
                                             q: state.dataset.q} : {});
  await window.htmx.ajax("GET", `${rows.dataset.rowsUrl}?${query}`, {target: "#history-rows", swap: "innerHTML"});
  rowsAdopt();  // before the notice is placed: rendering after it would move the rows under it
  if (text) show(text, options);
}

function body(form, submitter) {
  const kind = form.dataset.api;
  if (kind === "edit") return {fingerprint: form.dataset.fingerprint, text: form.elements.text.value};
  if (kind === "hide") return {fingerprint: form.dataset.fingerprint, hidden: form.dataset.hidden === "1"};
  if (kind === "swipe") return {turn: Number(form.dataset.turn), alternative: Number(submitter.value)};
  if (kind === "branch") return {index: Number(form.dataset.index), fingerprint: form.dataset.fingerprint};
  return undefined;
}

async function change(form, submitter) {
  const kind = form.dataset.api;
  const method = {edit: "PUT", hide: "PUT", delete: "DELETE", swipe: "POST", branch: "POST"}[kind];
  const address = kind === "delete"
    ? `${form.dataset.url}?${new URLSearchParams({fingerprint: form.dataset.fingerprint})}` : form.dataset.url;
  const row = form.closest(".history-row");
  const at = row && {index: Number(row.id.replace("line-", "")), removed: kind === "delete"};
  const r = await api(method, address, body(form, submitter));
  if (!r.ok) { show(await refusal(r), {error: true, at: at && {...at, removed: false}}); return; }
  // A branch is the chat's new current session (an older one's too: the way back to it).
  if (kind === "branch") { window.location.assign(form.dataset.chat); return; }
  const answer = await r.json();
  if (kind === "edit" && answer.changed === false) { await refresh(form.dataset.unchanged, {at}); return; }
  const done = kind === "swipe" ? form.dataset.done.replace("%(version)s", answer.version)
    .replace("%(versions)s", answer.versions) : form.dataset.done;
  await refresh(done, {undo: answer.undo_token || null, seconds: answer.undo_seconds || null, at});
}

if (rows) {
  rowsAdopt();
  historyMenuWire(rows);
  rows.addEventListener("htmx:afterSettle", rowsAdopt);
  rows.addEventListener("htmx:beforeSwap", () => historyMenuClose(false));
  rows.addEventListener("click", (event) => {
    const cancel = event.target.closest("[data-edit-cancel]");
    if (!cancel) return;
    const details = cancel.closest("details");
    details.open = false;
    const more = details.closest(".history-row").querySelector("[data-testid=history-more]");
    (more.offsetParent ? more : details.querySelector("summary")).focus({preventScroll: true});
  });
  document.addEventListener("submit", (event) => {
    const form = event.target.closest("#history-rows form[data-api]");
    if (!form || event.defaultPrevented) return;  // page.js asked "Are you sure?" and was told no
    event.preventDefault();
    change(form, event.submitter);
  });
}
