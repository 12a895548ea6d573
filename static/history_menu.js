// A history row's action menu on a narrow or touch screen: its ⋯ opens the row's own controls
// (Edit, Hide, Delete, the versions of the last reply) as labelled buttons big enough for a
// thumb, as the chat page's message menu does (same look: .msg-menu). An item runs the row's
// own control, so the same REST call (history.js). Arrows move, Escape, Tab or a tap outside
// close it and the focus goes back to the ⋯.
import {menuItemLabel, menuKeyCloses, menuPlaceBeside} from "./menu_list.js";

let open = null;  // {menu, opener}

// The row's controls, in the order they are shown on a laptop.
function controlsOf(row) {
  const actions = row.querySelector(".actions");
  const inspect = row.querySelector(":scope > .who a.inspect");
  return [...actions.querySelectorAll(
    ":scope > details.edit > summary, :scope > form[data-api] button[type=submit]:not([disabled])"),
          ...(inspect ? [inspect] : [])];
}

function run(control) {
  if (control.matches("a[href]")) { window.location.assign(control.href); return; }
  if (control.matches("summary")) {
    const details = control.parentElement;
    details.open = true;
    const box = details.querySelector("textarea");
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
    return;
  }
  control.form.requestSubmit(control);
}

export function historyMenuClose(refocus) {
  if (!open) return;
  const {menu, opener} = open;
  open = null;
  menu.remove();
  opener.setAttribute("aria-expanded", "false");
  if (refocus && opener.isConnected) opener.focus({preventScroll: true});
}

function menuOpen(opener, label) {
  historyMenuClose(false);
  const row = opener.closest(".history-row");
  const menu = document.createElement("div");
  menu.className = "msg-menu";
  menu.setAttribute("role", "menu");
  menu.setAttribute("aria-label", label);
  menu.dataset.testid = "history-menu";
  for (const control of controlsOf(row)) {
    const item = document.createElement("button");
    item.type = "button";
    item.setAttribute("role", "menuitem");
    item.tabIndex = -1;
    item.textContent = menuItemLabel(control);
    item.addEventListener("click", () => { historyMenuClose(false); run(control); });
    menu.append(item);
  }
  if (!menu.children.length) return;
  row.append(menu);
  menuPlaceBeside(menu, opener);
  open = {menu, opener};
  opener.setAttribute("aria-expanded", "true");
  menu.firstElementChild.focus({preventScroll: true});
}

function keys(e) {
  if (menuKeyCloses(open.menu, e)) historyMenuClose(true);
}

export function historyMenuWire(rows) {
  let reopenBlocked = null;  // the ⋯ whose press just closed its menu: that click does not reopen it
  rows.addEventListener("click", (e) => {
    const more = e.target.closest(".history-row [data-testid=history-more]");
    if (!more) return;
    const blocked = reopenBlocked === more;
    reopenBlocked = null;
    if (!blocked) menuOpen(more, rows.dataset.menuLabel || "Message actions");
  });
  document.addEventListener("pointerdown", (e) => {
    if (!open || open.menu.contains(e.target)) return;
    reopenBlocked = open.opener.contains(e.target) ? open.opener : null;
    historyMenuClose(false);
  }, true);
  document.addEventListener("keydown", (e) => {
    if (open && open.menu.contains(e.target)) keys(e);
  });
  window.addEventListener("scroll", () => { if (open) menuPlaceBeside(open.menu, open.opener); }, {passive: true});
}
