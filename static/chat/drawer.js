// The side column: a drawer (☰ Story) under 900 px that covers the chat, closed by Escape.
import {root} from "./config.js";

export function drawer(open) {
  root.classList.toggle("drawer-open", open);
  document.querySelector("[data-testid=drawer-toggle]").setAttribute("aria-expanded", String(open));
}

export function drawerWire() {
  // Escape closes the drawer, unless a dialog is open: the dialog takes its own Escape.
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || !root.classList.contains("drawer-open")) return;
    if (document.querySelector("dialog[open]")) return;
    drawer(false);
    document.querySelector("[data-testid=drawer-toggle]").focus();
  });
}
