// Room to read on a phone: while the player types on a narrow screen the page's chrome folds
// away (body.typing in static/app.css: the top bar behind a menu button, the offline banner and
// the prompt-size bar as small marks in the chat header, the buttons beside the input), and the
// page follows the visual viewport (the part of the screen the keyboard leaves), so the
// composer stays above the keyboard and the newest message stays in view. Leaving the input
// brings everything back. On a short screen (a phone held sideways, a small window: the
// conversation would keep under 250 px) the chrome stays folded while reading too; ≡ unfolds
// it until the player goes back to the conversation or the input.
import {messagesBox, nearNewest, scrollToNewest} from "./messages.js";

const narrow = window.matchMedia("(max-width: 900px)");
const short = window.matchMedia("(max-width: 900px) and (max-height: 680px)");
const UNFOLD_MS = 600;
let following = true;  // the reader is at the newest line (as of their last scroll)
let unfolded = false;  // the player opened the chrome with ≡ on a short screen

function typing() { return document.body.classList.contains("typing"); }

// body.folded is what static/app.css folds the chrome on: while typing, and on a short screen.
function foldUpdate() {
  const folded = typing() || (short.matches && !unfolded);
  if (folded === document.body.classList.contains("folded")) return;
  document.body.classList.toggle("folded", folded);
  if (following) scrollToNewest();
}

function typingSet(on) {
  if (on === typing()) return;
  if (on) unfolded = false;
  document.body.classList.toggle("typing", on);
  foldUpdate();
  viewportFollow();
}

// The keyboard shrinks the visual viewport and may pan it down the page (iOS); the page is
// pinned to it. Pinch zoom changes it too, and there the page must not follow.
function viewportFollow() {
  const view = window.visualViewport;
  const style = document.documentElement.style;
  if (view && typing() && Math.abs(view.scale - 1) < 0.01) {
    style.setProperty("--room-height", `${Math.round(view.height)}px`);
    style.setProperty("--room-top", `${Math.round(view.offsetTop)}px`);
  } else {
    style.removeProperty("--room-height");
    style.removeProperty("--room-top");
  }
  if (following) scrollToNewest();
}

// A tap elsewhere takes the focus at its start (mousedown): unfolding then would move what is
// under the finger before the tap ends, and the tap would land on something else. So the chrome
// comes back once the tap's click has found its target (or soon, when no click comes: a drag,
// a Tab away).
function unfoldAfterTap(composer) {
  let done = false;
  const unfold = () => {
    if (done) return;
    done = true;
    document.removeEventListener("click", unfold, true);
    if (!composer.contains(document.activeElement)) typingSet(false);
  };
  document.addEventListener("click", unfold, true);
  setTimeout(unfold, UNFOLD_MS);
}

// Whatever takes room under the conversation (the Undo toast after a delete, a connection
// line, a growing input) shrinks the conversation from below: the reader at the newest line
// keeps the whole last message in view, another keeps the lines they were reading at the
// bottom, rather than having them slide under the composer.
function keepBottomInView() {
  const composer = document.querySelector(".composer");
  if (!window.ResizeObserver || !messagesBox()) return;
  let height = messagesBox().clientHeight;
  // The composer and the column are watched, not the list: it is replaced when read again.
  const watch = new ResizeObserver(() => {
    const box = messagesBox();
    const shrunk = height - box.clientHeight;
    height = box.clientHeight;
    if (following) scrollToNewest();
    else if (shrunk > 0) box.scrollTop += shrunk;
  });
  watch.observe(composer);
  watch.observe(document.querySelector(".chat-main"));
}

export function roomWire() {
  const composer = document.querySelector(".composer");
  const input = document.getElementById("input");
  input.addEventListener("focusin", () => { if (narrow.matches) typingSet(true); });
  composer.addEventListener("focusout", (e) => {
    if (!composer.contains(e.relatedTarget)) unfoldAfterTap(composer);
  });
  // A tap on a button would take the focus from the input first, the chrome would unfold and
  // the button move away before the tap ends: while typing, the input keeps the focus (and a
  // phone its keyboard); the header's buttons then leave the input themselves.
  for (const area of [composer, document.querySelector(".chat-head")]) {
    area.addEventListener("mousedown", (e) => {
      if (typing() && e.target.closest("button")) e.preventDefault();
    });
  }
  document.querySelector(".chat-head").addEventListener("click", (e) => {
    if (typing() && e.target.closest("button")) input.blur();
  }, true);
  document.querySelector("[data-testid=nav-menu]").addEventListener("click", () => {
    unfolded = true;
    typingSet(false);
    foldUpdate();
    // On a phone the bar's links are behind its own ≡ Menu (static/topbar.js): opened too.
    if (window.topbarOpen && window.topbarOpen()) return;
    const first = document.querySelector(".topbar nav a, .topbar a");
    if (first) first.focus();
  });
  const view = window.visualViewport;
  if (view) {
    const follow = () => { if (typing()) viewportFollow(); };
    view.addEventListener("resize", follow);
    view.addEventListener("scroll", follow);
  }
  // Measured when the reader scrolls, not when the keyboard has already shrunk the list.
  document.addEventListener("scroll", (e) => {
    if (e.target.id === "messages") following = nearNewest();
  }, {capture: true, passive: true});
  narrow.addEventListener("change", () => {
    if (!narrow.matches) typingSet(false);
  });
  short.addEventListener("change", foldUpdate);
  keepBottomInView();
  // Back to reading after ≡: a tap in the conversation folds the chrome again.
  // (delegated: the message list is swapped when it is read again)
  document.addEventListener("click", (e) => {
    if (unfolded && e.target.closest("#messages")) { unfolded = false; foldUpdate(); }
  });
  foldUpdate();
}
