// A message's action menu: its ⋯ button (the only action shown under a message on a narrow
// or touch screen, where six small words were too many), a long press (≈ 500 ms) on a touch
// screen, or Enter / Space on a message reached with Tab, opens its actions as labelled buttons
// (Copy, Edit, Hide, Delete, Branch, Info, the versions of the last reply, the prompt). An item
// does what the message's own button does, through the same code (actions.js) and so the same
// REST calls. Escape or a tap outside closes it and the focus goes back to the message.
import {S} from "./config.js";
import {actionHeld, messageAction} from "./actions.js";
import {menuItemLabel, menuKeyCloses, menuPlaceBeside} from "../menu_list.js";

const PRESS_MS = 500;
const SLOP_PX = 10;  // a finger that moves more is scrolling, not pressing
const TAPPABLE = "button, a, textarea, input, select, summary, details, .edit-actions";
let open = null;  // {menu, article, opener}
let reopenBlocked = null;  // the ⋯ whose press just closed its menu: that click does not reopen it

// Every message the server rendered can take the focus, so Tab reaches it; new ones (a turn,
// an older page, a message read again) are made so as they arrive.
function focusableMake(scope) {
  if (scope.matches?.(".msg[data-index]:not([tabindex])")) scope.tabIndex = 0;
  for (const article of scope.querySelectorAll(".msg[data-index]:not([tabindex])")) {
    article.tabIndex = 0;
  }
}

// Only what the mutations added is looked at: a jump's 1,000 older lines are drawn a slice at a
// time, each slice a mutation, and a look over the whole list at each held a phone's page.
function addedFocusable(records) {
  for (const record of records) {
    for (const node of record.addedNodes) {
      if (node.nodeType === Node.ELEMENT_NODE && !node.closest(".md")) focusableMake(node);
    }
  }
}

function menuBuild(article, opener) {
  const menu = document.createElement("div");
  menu.className = "msg-menu";
  menu.setAttribute("role", "menu");
  menu.setAttribute("aria-label", S.messageActions || "Message actions");
  menu.dataset.testid = "message-menu";
  const controls = article.querySelectorAll(
    "footer.actions button[data-action]:not([disabled]), footer.actions a[data-trace]");
  for (const control of controls) {
    const item = document.createElement("button");
    item.type = "button";
    item.setAttribute("role", "menuitem");
    item.tabIndex = -1;
    item.textContent = menuItemLabel(control);
    item.dataset.testid = `menu-${control.dataset.testid || "prompt"}`;
    // Shown off with the reason rather than left out: the menu keeps its shape, and a press
    // says why (actions.js) instead of a refusal from the server.
    if (actionHeld(control.dataset.action)) {
      item.setAttribute("aria-disabled", "true");
      item.title = S.chatLocked;
    }
    item.addEventListener("click", () => {
      menuClose(false);
      if (control.dataset.action) {
        messageAction(control.dataset.action, control, {fromMenu: true, back: opener ? "more" : null});
      }
      else window.location.assign(control.href);
    });
    menu.append(item);
  }
  if (menu.querySelector("[aria-disabled=true]")) {
    const note = document.createElement("p");
    note.className = "msg-menu-note";
    note.dataset.testid = "menu-locked-note";
    note.textContent = S.chatLocked;
    menu.append(note);
  }
  return menu;
}

function menuPlace(menu, article, opener) {
  if (opener) { menuPlaceBeside(menu, opener); return; }
  const size = menu.getBoundingClientRect();
  const box = article.getBoundingClientRect();
  const top = Math.min(box.top + 24, window.innerHeight - size.height - 8);
  menu.style.top = `${Math.max(8, top)}px`;
  menu.style.left = `${Math.max(8, Math.min(box.left + 40, window.innerWidth - size.width - 8))}px`;
}

export function menuOpen(article, opener = null) {
  menuClose(false);
  const menu = menuBuild(article, opener);
  if (!menu.querySelector("[role=menuitem]")) return;
  // A long read's line is laid out only near the view (app.css `.far`): its containment would
  // place and clip the menu, which is position:fixed.
  article.classList.remove("far");
  article.append(menu);
  menuPlace(menu, article, opener);
  open = {menu, article, opener};
  opener?.setAttribute("aria-expanded", "true");
  menu.firstElementChild.focus({preventScroll: true});
}

function menuClose(refocus) {
  if (!open) return;
  const {menu, article, opener} = open;
  open = null;
  menu.remove();
  opener?.setAttribute("aria-expanded", "false");
  const back = opener?.isConnected ? opener : article;
  if (refocus && back.isConnected) back.focus({preventScroll: true});
}

// The list read again (a memory action's end, a turn, another tab's change) replaces the
// message an open menu hangs on: the menu opens again on its fresh copy, built anew so what the
// change turned on or off shows, rather than vanishing under the reader's finger.
function menuFollow() {
  if (!open || open.article.isConnected) return;
  const {article, opener} = open;
  const {index, fp} = article.dataset;  // the same line, not whichever now holds its place
  const fresh = document.querySelector(`#messages .msg[data-index="${index}"][data-fp="${fp}"]`);
  open = null;
  if (!fresh) return;
  menuOpen(fresh, opener ? fresh.querySelector("[data-testid=more]") : null);
}

function menuKeys(e) {
  if (!menuKeyCloses(open.menu, e)) return;
  e.stopPropagation();  // the drawer's Escape is not this one
  menuClose(true);
}

function pressWire(list) {
  let press = null;
  let opened = false;  // this touch opened the menu: its end is no tap on what lies under it
  const cancel = () => { if (press) clearTimeout(press.timer); press = null; };
  list.addEventListener("touchstart", (e) => {
    cancel();
    opened = false;
    const article = e.target.closest(".msg[data-index]");
    if (!article || e.touches.length !== 1 || e.target.closest(TAPPABLE)) return;
    const {clientX: x, clientY: y} = e.touches[0];
    press = {x, y, timer: setTimeout(() => {
      press = null;
      opened = true;
      window.getSelection()?.removeAllRanges();  // the press was for the menu, not a selection
      menuOpen(article);
    }, PRESS_MS)};
  }, {passive: true});
  list.addEventListener("touchmove", (e) => {
    if (!press) return;
    const touch = e.touches[0];
    if (Math.hypot(touch.clientX - press.x, touch.clientY - press.y) > SLOP_PX) cancel();
  }, {passive: true});
  list.addEventListener("touchend", (e) => {
    cancel();
    if (opened && e.cancelable) e.preventDefault();  // no click on the item under the finger
    opened = false;
  });
  list.addEventListener("touchcancel", cancel);
  // Android's own long press asks for the browser's context menu: ours instead.
  list.addEventListener("contextmenu", (e) => {
    const article = e.target.closest(".msg[data-index]");
    if (!article || e.target.closest(TAPPABLE) || !window.matchMedia("(pointer: coarse)").matches) return;
    e.preventDefault();
    cancel();
    if (!open || open.article !== article) menuOpen(article);
  });
}

export function menuWire() {
  const chat = document.getElementById("chat");
  focusableMake(document);
  new MutationObserver((records) => {
    addedFocusable(records);
    menuFollow();
  }).observe(chat, {childList: true, subtree: true});
  document.addEventListener("keydown", (e) => {
    if (open && open.menu.contains(e.target)) { menuKeys(e); return; }
    const article = e.target.matches?.(".msg[data-index]") ? e.target : null;
    if (!article) return;
    if (e.key === "Enter" || e.key === " " || e.key === "ContextMenu" || (e.key === "F10" && e.shiftKey)) {
      e.preventDefault();
      menuOpen(article);
    }
  });
  document.addEventListener("pointerdown", (e) => {
    if (!open || open.menu.contains(e.target)) return;
    reopenBlocked = open.opener && open.opener.contains(e.target) ? open.opener : null;
    menuClose(false);
  }, true);
  chat.addEventListener("click", (e) => {
    const more = e.target.closest(".msg [data-testid=more]");
    if (!more) return;
    const blocked = reopenBlocked === more;
    reopenBlocked = null;
    if (!blocked) menuOpen(more.closest(".msg"), more);
  });
  // The list scrolls under the menu (the reader's own scroll, or the page keeping the newest
  // line in view as the chrome folds back on a tap): the menu follows its message, and closes
  // once that is out of sight.
  document.addEventListener("scroll", (e) => {
    if (!open || e.target.id !== "messages") return;
    const anchor = (open.opener || open.article).getBoundingClientRect();
    const list = e.target.getBoundingClientRect();
    if (anchor.bottom < list.top || anchor.top > list.bottom) menuClose(false);
    else menuPlace(open.menu, open.article, open.opener);
  }, {capture: true, passive: true});
  pressWire(chat);
}
