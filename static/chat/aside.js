// Asides (seed 003 §14 Chat): answered in the side panel, never part of the story.
import {S} from "./config.js";
import {connected, eventsOn, socketSend} from "./socket.js";

export function asideWire() {
  const form = document.getElementById("aside-form");
  if (!form) return;
  const log = document.getElementById("aside-log");
  const status = document.getElementById("aside-status");
  const stop = document.getElementById("aside-stop");
  let answer = null;

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

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = form.elements.content.value;
    if (!text.trim() || !connected()) { if (!connected()) status.textContent = S.notConnected; return; }
    line("user", S.you, text);
    form.elements.content.value = "";
    status.textContent = "";
    asking(true);
    socketSend({type: "aside", speaker: form.elements.speaker.value, content: text});
  });
  stop.addEventListener("click", () => { if (connected()) socketSend({type: "aside_stop"}); });
}
