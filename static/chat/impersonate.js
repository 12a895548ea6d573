// Impersonate: the model writes the player's next message into the box. As in SillyTavern the
// suggestion streams into the input box and nothing is sent. Unlike SillyTavern, text already
// typed is kept: the suggestion goes after it, following a space.
import {S, fill} from "./config.js";
import {closeOn, connected, draftSave, eventsOn, openOn, opening, setBusy, showBanner, socketSend,
        statusSay, turn} from "./socket.js";

const input = document.getElementById("input");
let impersonating = null;  // {before, prefix, text}
let waiting = false;  // pressed while the page's first connection was opening

function impersonateEnd(status) {
  impersonating = null;
  input.readOnly = false;
  setBusy(false);
  statusSay(status);
  draftSave();
}

function onImpersonateEvent(event) {
  if (!impersonating) return;
  if (event.type === "impersonate_token") {
    // `text`: the suggestion so far as the server cleans it (no "Name:", no character's line)
    impersonating.text = typeof event.text === "string" ? event.text
      : impersonating.text + event.content;
    input.value = impersonating.prefix + impersonating.text;
    draftSave();
  } else if (event.type === "impersonate_done" && !event.error) {
    input.value = impersonating.prefix + event.content;
    impersonateEnd(event.stopped ? S.impersonateStopped : "");
    input.focus();
  } else {
    input.value = impersonating.before;  // a failure never costs what was typed
    impersonateEnd(fill(S.impersonateFailed, event.error || event.message || ""));
  }
}

export function impersonateStart() {
  if (turn.busy || turn.locked) return;
  if (!connected()) {
    if (opening()) waiting = true;
    else showBanner(S.notConnected);
    return;
  }
  const before = input.value;
  impersonating = {before, prefix: before.trim() ? before.replace(/\s+$/, "") + " " : "", text: ""};
  input.readOnly = true;
  setBusy(true);
  statusSay(S.impersonating);
  socketSend({type: "impersonate"});
}

export function impersonateWire() {
  eventsOn("impersonate_", onImpersonateEvent);
  closeOn(() => { if (impersonating) impersonateEnd(""); });  // what came so far stays in the box
  openOn(() => {
    if (!waiting) return;
    waiting = false;
    impersonateStart();
  });
  document.getElementById("impersonate-button").addEventListener("click", impersonateStart);
}
