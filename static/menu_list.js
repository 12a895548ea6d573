// What the chat's message menu (chat/menu.js) and the history manager's row menu
// (history_menu.js) share: an item's words, the place beside the ⋯ that opened it, and the keys.

export function menuItemLabel(control) {
  const word = control.textContent.trim();
  const said = control.getAttribute("aria-label");
  return said && said !== word ? `${word} ${said}` : word;  // ‹ › say what they do in their aria-label
}

// Under the ⋯, or over it near the bottom of the window; never off its sides.
export function menuPlaceBeside(menu, opener) {
  const size = menu.getBoundingClientRect();
  const at = opener.getBoundingClientRect();
  const top = at.bottom + 4 + size.height <= window.innerHeight - 8 ? at.bottom + 4 : at.top - 4 - size.height;
  menu.style.top = `${Math.max(8, top)}px`;
  menu.style.left = `${Math.max(8, Math.min(at.right - size.width, window.innerWidth - size.width - 8))}px`;
}

// Arrows, Home and End move among the items; true when the key (Escape, Tab) closes the menu.
export function menuKeyCloses(menu, e) {
  const items = [...menu.querySelectorAll("[role=menuitem]")];
  const at = items.indexOf(document.activeElement);
  const go = {ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1}[e.key];
  if (go !== undefined) {
    e.preventDefault();
    items[(go + items.length) % items.length].focus();
    return false;
  }
  if (e.key !== "Escape" && e.key !== "Tab") return false;
  e.preventDefault();
  return true;
}
