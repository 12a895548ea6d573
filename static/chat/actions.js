// The controls on one message: Copy, Edit, Hide, Delete (with Undo), Branch, Info and the
// versions of the last reply. Every change goes through the REST API (the same calls and checks as any
// other client); the changed message is then read again from the file.
import {S, fill, root, touch, url} from "./config.js";
import {api, refusal} from "../rest.js";
import {escapeHtml, fragment, renderAll} from "./render.js";
import {currentSession, messageRefresh, reloadFromFile, sessionLabel} from "./messages.js";
import {regenerate} from "./composer.js";
import {infoShow} from "./info.js";
import {turn} from "./socket.js";

// What changes the chat's file, refused by the server while a summarize / update memory holds
// the chat: off on the page until it ends (Copy and Info only read).
const CHANGES = new Set(["edit", "delete", "branch", "hide", "swipe"]);
export function actionHeld(action) {
  return turn.locked && CHANGES.has(action);
}

export function toast(text, action) {
  const box = document.getElementById("toast");
  box.replaceChildren();
  const span = document.createElement("span");
  span.textContent = text;
  box.append(span);
  if (action) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.dataset.testid = "undo";
    button.textContent = action.label;
    button.addEventListener("click", () => { box.hidden = true; action.run(); });
    box.append(button);
  }
  box.hidden = false;
  clearTimeout(box.timer);
  box.timer = setTimeout(() => {
    const held = box.contains(document.activeElement);
    box.hidden = true;
    if (held) document.getElementById("input").focus();  // not lost with the toast
  }, action ? action.seconds * 1000 : 4000);
}

// After an action the keyboard's focus goes back where it was: the same control on the
// message as read again, or the message itself (when that control is gone or the menu ran it),
// never the top of the page.
function focusBack({index, testid}) {
  const article = document.querySelector(`#messages .msg[data-index="${index}"]`);
  if (!article) return;
  const control = testid && article.querySelector(`footer.actions [data-testid="${testid}"]:not([disabled])`);
  (control || article).focus({preventScroll: true});
}

// One change at a time: the server holds the chat's lock for each and refuses another meanwhile
// ("busy"), which a second quick click (Hide on two messages, a delete then an undo) got. A
// change waits for the one before it, and then reads its message as that one left it (its
// place after a delete).
let changing = Promise.resolve();
function inTurn(change) {
  const next = changing.then(change);
  changing = next.catch(() => {});
  return next;
}

function messageUrl(article) {
  return url("messageUrl", {session: currentSession(), index: article.dataset.index});
}

async function editStart(article, back) {
  const text = article.querySelector(".text");
  if (article.dataset.editing) return;
  article.dataset.editing = "1";
  // The file's text (macros like {{user}} as written), not what the page shows.
  const query = new URLSearchParams({fingerprint: article.dataset.fp});
  const source = await api("GET", `${messageUrl(article)}?${query}`);
  if (!source.ok) { delete article.dataset.editing; toast(await refusal(source)); return; }
  const box = document.createElement("textarea");
  box.className = "edit-box";
  box.dataset.testid = "edit-box";
  box.value = (await source.json()).content;
  box.rows = Math.min(12, Math.max(2, box.value.split("\n").length + 1));
  // Buttons too: a phone has no Escape, and there Enter is a new line.
  const bar = fragment(`<div class="edit-actions"><button type="button" data-testid="edit-save">${escapeHtml(S.save)}</button> <button type="button" class="secondary" data-testid="edit-cancel">${escapeHtml(S.cancel)}</button></div>`).firstElementChild;
  text.hidden = true;
  text.after(box, bar);
  // Rows count the file's lines, but a paragraph wraps to many on a phone (its 2-row box showed
  // the last two lines of a reply): the box takes the text's height, up to most of the screen.
  box.style.height = `${Math.min(box.scrollHeight + 2, Math.round(innerHeight * 0.6))}px`;
  box.focus();
  bar.scrollIntoView({block: "nearest"});  // Save / Cancel in sight, not under the composer
  const cancel = () => {
    box.remove(); bar.remove(); text.hidden = false; delete article.dataset.editing;
    focusBack(back);
  };
  const save = () => inTurn(async () => {
    const r = await api("PUT", messageUrl(article), {fingerprint: article.dataset.fp, text: box.value});
    if (!r.ok) { toast(await refusal(r)); return; }
    await messageRefresh(article);
    focusBack(back);
  });
  bar.querySelector("[data-testid=edit-save]").addEventListener("click", save);
  bar.querySelector("[data-testid=edit-cancel]").addEventListener("click", cancel);
  box.addEventListener("keydown", async (e) => {
    if (e.key === "Escape") cancel();
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !touch) {
      e.preventDefault();
      await save();
    }
  });
}

async function remove(article, back) {
  const query = new URLSearchParams({fingerprint: article.dataset.fp});
  const r = await api("DELETE", `${messageUrl(article)}?${query}`);
  if (!r.ok) { toast(await refusal(r)); return; }
  const {undo_token: token, undo_seconds: seconds, plot_state_restored: moved} = await r.json();
  // The latest reply's progress was taken back with it: the outline and ☰ Story follow.
  if (moved && window.htmx) window.htmx.trigger(document.body, "plot-changed");
  for (let next = article.nextElementSibling; next; next = next.nextElementSibling) {
    if (!next.dataset.index) continue;
    next.dataset.index = Number(next.dataset.index) - 1;
    const shown = next.querySelector(".msg-number");
    if (shown) shown.textContent = `#${next.dataset.index}`;
  }
  article.remove();
  toast(S.deleted, {label: S.undo, seconds, run: () => inTurn(async () => {
    const u = await api("POST", url("undoUrl"), {token});
    if (!u.ok) { toast(await refusal(u)); return; }
    await reloadFromFile();
    toast(S.restored);
    focusBack(back);
  })});
  document.querySelector("#toast [data-testid=undo]").focus({preventScroll: true});
}

async function hide(article, control) {
  const hidden = control.dataset.hidden !== "1";
  const r = await api("PUT", messageUrl(article), {fingerprint: article.dataset.fp, hidden});
  if (!r.ok) { toast(await refusal(r)); return; }
  await messageRefresh(article);
  toast(hidden ? S.hidden : S.unhidden);
}

async function branch(article) {
  const r = await api("POST", url("branchUrl", {session: currentSession()}),
                      {index: Number(article.dataset.index), fingerprint: article.dataset.fp});
  if (!r.ok) { toast(await refusal(r)); return; }
  const data = await r.json();
  toast(fill(S.branched, sessionLabel(data.session_id)));
  await reloadFromFile();
}

// Another version of the last reply: ‹ and › pick one of those kept; › on the newest asks the
// model for a new one, as Regenerate does.
export async function swipe(article, alternative) {
  if (alternative === "new") { regenerate(); return; }
  const r = await api("POST", url("swipeUrl", {session: currentSession()}),
                      {turn: Number(article.dataset.turn), alternative: Number(alternative)});
  if (!r.ok) { document.getElementById("status").textContent = await refusal(r); return; }
  await messageRefresh(article);
  if (window.htmx) window.htmx.trigger(document.body, "plot-changed");  // the outline follows
}

async function copy(article) {
  renderAll(article);  // a line of a long read not drawn yet has no text-as-written kept yet
  const text = article.querySelector(".text");
  try {
    await navigator.clipboard.writeText(text.dataset.raw || text.textContent);
    toast(S.copied);
  } catch (e) {
    toast(S.copyRefused);
  }
}

// `fromMenu`: run from the message's menu (menu.js), whose focus goes back to the message, or
// to its ⋯ (`back: "more"`) when that opened the menu.
export function messageAction(action, control, {fromMenu = false, back: backTo = null} = {}) {
  const article = control.closest(".msg");
  const back = {index: article.dataset.index, testid: fromMenu ? backTo : control.dataset.testid};
  const done = () => focusBack(back);
  if (actionHeld(action)) { toast(S.chatLocked); done(); return true; }
  if (action === "edit") editStart(article, back);
  else if (action === "delete") inTurn(() => remove(article, back));
  else if (action === "branch") inTurn(() => branch(article)).then(done);
  else if (action === "hide") inTurn(() => hide(article, control)).then(done);
  else if (action === "copy") copy(article).then(done);
  else if (action === "swipe") inTurn(() => swipe(article, control.dataset.alternative)).then(done);
  else if (action === "info") infoShow(article, done);
  else return false;
  return true;
}

// On a touch screen the last reply follows the finger as SillyTavern's does: a swipe to the
// left shows the next version (or asks for a new one), to the right the one before. Mostly
// sideways and long enough, so scrolling the chat never flips a reply.
export function gestureWire() {
  let start = null;
  root.addEventListener("touchstart", (e) => {
    const reply = e.target.closest(".msg[data-last-reply]");
    start = reply && e.touches.length === 1
      ? {reply, x: e.touches[0].clientX, y: e.touches[0].clientY} : null;
  }, {passive: true});
  root.addEventListener("touchend", (e) => {
    if (!start || e.target.closest("textarea, button, a")) { start = null; return; }
    const dx = e.changedTouches[0].clientX - start.x;
    const dy = e.changedTouches[0].clientY - start.y;
    const reply = start.reply;
    start = null;
    if (Math.abs(dx) < 60 || Math.abs(dy) > Math.abs(dx) / 2) return;
    const button = reply.querySelector(dx < 0 ? "[data-testid=swipe-next]" : "[data-testid=swipe-prev]");
    if (button && !button.disabled) button.click();
  });
}
