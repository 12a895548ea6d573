// Asides (seed 003 §14 Chat): answered in the side panel, never part of the story.
import {S, root} from "./config.js";
import {closeOn, connected, eventsOn, openOn, socketSend} from "./socket.js";

// A question typed here outlives a reload, as the message box's draft does (its prefix, so a
// log-out forgets it too): a reload in the middle of typing one lost it.
const draftKey = `personalab-draft-aside-${root.dataset.account}-${root.dataset.instance}`;

function draftWire(form) {
  const box = form.elements.content;
  const kept = localStorage.getItem(draftKey);
  if (kept && !box.value) {
    box.value = kept;
    form.closest("details").open = true;
  }
  box.addEventListener("input", () => {
    if (box.value) localStorage.setItem(draftKey, box.value);
    else localStorage.removeItem(draftKey);
  });
}

export function asideWire() {
  const form = document.getElementById("aside-form");
  if (!form) return;
  const log = document.getElementById("aside-log");
  const status = document.getElementById("aside-status");
  const stop = document.getElementById("aside-stop");
  let answer = null;
  let waiting = null;  // a question asked while the socket was not open: sent when it opens
  draftWire(form);

  const asking = (value) => {
    form.querySelector("[data-testid=aside-send]").disabled = value;
    stop.hidden = !value;
  };

  const line = (role, name, text) => {
    const p = document.createElement("p");
    p.className = "aside-line " + role;
    const who = document.createElement("strong");
    const isolated = document.createElement("bdi");  // a name's U+202E reverses only itself
    isolated.textContent = name;
    who.append(isolated, ": ");
    const body = document.createElement("span");
    body.textContent = text;
    p.append(who, body);
    log.append(p);
    return body;
  };

  eventsOn("aside_", (event) => {
    if (event.type === "aside_token") {
      if (!answer) answer = line("assistant", event.name, "");
      answer.textContent += event.content;
    } else if (event.type === "aside_done") {
      if (!answer) answer = line("assistant", event.name, "");
      answer.previousSibling.querySelector("bdi").textContent = event.name;
      answer.textContent = event.content;
      status.textContent = event.error ? S.error + " " + event.error
        : [event.stopped ? S.asideStopped : "", event.kept ? S.asideKept : ""]
          .filter(Boolean).join(" · ");
      answer = null;
      asking(false);
    } else if (event.type === "aside_error") {
      status.textContent = S.error + " " + event.message;
      answer = null;
      asking(false);
    }
  });

  // Asked before the page's socket opened (a slow phone) or while it reconnects: the question
  // stays in the panel and goes once the socket is open, as a line typed in the box does.
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = form.elements.content.value;
    if (!text.trim()) return;
    line("user", S.you, text);
    form.elements.content.value = "";
    localStorage.removeItem(draftKey);
    asking(true);
    const frame = {type: "aside", speaker: form.elements.speaker.value, content: text};
    if (connected()) {
      status.textContent = "";
      socketSend(frame);
    } else {
      waiting = frame;
      status.textContent = S.queued;
    }
  });
  openOn(() => {
    if (!waiting) return;
    status.textContent = "";
    socketSend(waiting);
    waiting = null;
  });
  // An answer cut by a lost connection ends here: what came of it stays in the panel.
  closeOn(() => {
    if (stop.hidden || waiting) return;  // no question sent and unanswered
    answer = null;
    asking(false);
    status.textContent = S.notConnected;
  });
  stop.addEventListener("click", () => {
    if (waiting) {
      waiting = null;
      asking(false);
      status.textContent = S.asideStopped;
    } else if (connected()) {
      socketSend({type: "aside_stop"});
    }
  });
}
