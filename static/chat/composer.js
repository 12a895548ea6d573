// The input and its buttons: Send, Stop, Regenerate, Continue, and "Answer now" on a member.
// Whether ↻ / → redo the last reply or ask for a missing one is the server's decision
// (chat/play/redo.py), the same for every way in.
import {S, touch} from "./config.js";
import {impersonateStart} from "./impersonate.js";
import {connected, draftKeep, draftSave, queuedDrop, send, setBusy, socketSend, turn} from "./socket.js";

export function composerWire() {
  const input = document.getElementById("input");
  const form = document.getElementById("send-form");
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value;
    if (turn.busy) return;
    // SillyTavern's empty Send: the character speaks again, no line of the player's (it did
    // nothing here, without a word).
    if (!text.trim()) { send({type: "trigger"}); return; }
    if (/^\/imp(ersonate)?$/i.test(text.trim())) {  // SillyTavern's slash command
      input.value = "";
      impersonateStart();
      return;
    }
    draftKeep(text);
    send({type: "send", content: text});
  });
  // A touch keyboard has no Shift+Enter, so there Enter is a new line and Send sends (as
  // SillyTavern's "send on Enter: auto" does on phones). The page comes saying so (without
  // scripts Enter is a new line too); a keyboard's Enter sends once this script listens.
  input.placeholder = touch ? S.placeholderTouch : S.placeholderKeys;
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !touch) { e.preventDefault(); form.requestSubmit(); }
  });
  input.addEventListener("input", () => { draftSave(); queuedDrop(); });
  document.getElementById("stop-button").addEventListener("click", () => {
    if (connected()) socketSend({type: "stop"});
  });
  document.getElementById("regenerate-button").addEventListener("click", regenerate);
  document.getElementById("continue-button").addEventListener("click", () => {
    if (!turn.busy) send({type: "continue"});
  });
  // "Answer now" on a member of a group: that character answers the lines already there.
  document.addEventListener("click", (e) => {
    const button = e.target.closest("[data-trigger-speaker]");
    if (!button) return;
    e.preventDefault();  // it submits its form (to the page route) only without this script
    if (turn.busy) return;
    send({type: "trigger", speaker: button.dataset.triggerSpeaker});
    const drawer = document.querySelector("[data-testid=drawer-toggle]");  // show the reply
    if (drawer && drawer.offsetParent && drawer.getAttribute("aria-expanded") === "true") drawer.click();
  });
  // "muted" holds from the tick: a box that waited for Save let the member answer the next
  // line anyway, the drawer closed with the box ticked.
  document.addEventListener("change", (e) => {
    if (e.target.name !== "muted" || !e.target.closest("#members-card")) return;
    // A click, not requestSubmit(): htmx sends the button it saw clicked (action=change).
    e.target.form.querySelector("button[value=change]").click();
  });
  // The page comes with these buttons off: a click before this script listened was lost.
  setBusy(turn.busy);
}

export function regenerate() {
  if (!turn.busy) send({type: "regenerate"});
}
