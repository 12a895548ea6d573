// The side column: a drawer (☰ Story) under 900 px that covers the chat, closed by Escape.
import {root} from "./config.js";

// `focus`: opened by ☰ Story, the focus goes into the drawer (the next Tab went to the messages
// under it, every one of them before the drawer's first card); closed by ✕, back to ☰ Story.
export function drawer(open, {focus = false} = {}) {
  root.classList.toggle("drawer-open", open);
  const toggle = document.querySelector("[data-testid=drawer-toggle]");
  toggle.setAttribute("aria-expanded", String(open));
  if (!focus) return;
  if (open) drawerFocus();
  else if (toggle.offsetParent) toggle.focus();
}

// A phone's drawer is still hidden as it starts sliding in: focus it once it shows, unless the
// focus is already inside it (a transition of a card in it, or a slide that ended after the
// player moved in, took the focus from the member picker to the drawer's top).
function drawerFocus() {
  const side = document.getElementById("drawer");
  side.focus();
  if (document.activeElement === side) return;
  const shown = (event) => {
    if (event.target !== side) return;
    side.removeEventListener("transitionend", shown);
    if (!side.contains(document.activeElement)) side.focus();
  };
  side.addEventListener("transitionend", shown);
}

// The ☰ Story button says how far the outline is ("3/5 · 4 in progress"), so a phone shows the story moving
// without opening the drawer; the outline is read again after each turn and swipe.
function storyProgressShow() {
  const outline = document.getElementById("outline");
  const shown = document.querySelector("[data-testid=story-progress]");
  if (!outline || !shown) return;
  shown.textContent = outline.dataset.progress || "";
  shown.title = outline.dataset.progressWords || "";
  shown.hidden = !outline.dataset.progress;
  // A held beat shows there too (⚓, its words for a screen reader): a phone hid it in the drawer.
  const held = document.querySelector("[data-testid=story-held]");
  if (!held) return;
  held.hidden = !outline.dataset.heldNote;
  held.title = outline.dataset.heldNote || "";
}

export function drawerWire() {
  // The outline, memory and export come after every message's buttons: a skip link leads
  // there (opening the drawer on a phone) instead of some 300 presses of Tab.
  const skip = document.querySelector("[data-testid=skip-to-story]");
  if (skip) {
    skip.addEventListener("click", (e) => {
      e.preventDefault();
      drawer(true, {focus: true});
    });
  }
  const card = document.getElementById("outline-card");
  if (card) new MutationObserver(storyProgressShow).observe(card, {childList: true, subtree: true});
  // Escape closes the drawer, unless a dialog is open: the dialog takes its own Escape.
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || !root.classList.contains("drawer-open")) return;
    if (document.querySelector("dialog[open]")) return;
    drawer(false);
    document.querySelector("[data-testid=drawer-toggle]").focus();
  });
}
