// Summarize / Update memory show their stage and elapsed time; the result (or why it stopped)
// stays until the player dismisses it, while the page moves to the new session by itself. An
// imported chat's embedding says how far it is while it is not done.
import {budgetShow, latestTraceId} from "./budget.js";
import {S, fill, url} from "./config.js";
import {reloadFromFile} from "./messages.js";
import {lockSet, statusSay} from "./socket.js";

function resultShow(text, status) {
  const result = document.getElementById("memory-result");
  const line = document.createElement("p");
  line.className = status;
  line.textContent = text;
  result.replaceChildren(line);
}

// The request got no answer (the server went down, the connection dropped): the server, once
// back, says whether the action stopped; unreachable, the page says it for it.
async function stoppedSay(card) {
  let text = S.memoryStopped;
  try {
    const r = await fetch(card.dataset.progressUrl);
    const state = r.ok ? r.headers.get("X-Memory-Progress") : null;
    if (state === "stopped") text = await r.text();
    else if (state === "running") text = S.memoryStillRunning;
  } catch (err) { /* still down: the page's own words */ }
  resultShow(text, "error");
}

function dismissAdd() {
  const result = document.getElementById("memory-result");
  const button = document.createElement("button");
  button.type = "button";
  button.className = "secondary";
  button.dataset.testid = "memory-result-dismiss";
  button.textContent = S.dismiss;
  button.addEventListener("click", () => result.replaceChildren());
  result.append(" ", button);
}

export function memoryWire() {
  const card = document.getElementById("memory-card");
  card.addEventListener("htmx:beforeRequest", (e) => {
    if (!e.target.dataset.memoryAction) return;
    const started = Date.now();
    const stage = document.getElementById("memory-stage");
    const elapsed = document.getElementById("memory-elapsed");
    stage.textContent = S.starting;
    elapsed.textContent = "0 s";  // each run counts from its own start, not from the last one's
    document.getElementById("memory-result").replaceChildren();
    lockSet(true);
    const timer = setInterval(async () => {
      elapsed.textContent = `${Math.round((Date.now() - started) / 1000)} s`;
      try {
        const r = await fetch(card.dataset.progressUrl);
        if (r.ok) stage.textContent = await r.text();
      } catch (err) { /* the answer (or its failure) says what happened */ }
    }, 500);
    e.target.addEventListener("htmx:afterRequest", async (done) => {
      clearInterval(timer);
      lockSet(false);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (!done.detail.xhr || !done.detail.xhr.status) await stoppedSay(card);
      const took = document.createElement("small");
      took.className = "muted";
      took.textContent = ` (${fill(S.took, seconds)})`;
      document.getElementById("memory-result").append(took);
      dismissAdd();
      budgetAfter();
    }, {once: true});
  });
}

// The chat as the run left it; after a summarize, the prompt-size bar no longer shows the
// previous conversation's figure (budget.js).
function budgetAfter() {
  reloadFromFile().then(() => budgetShow(latestTraceId())).catch(() => {});
}

// A summarize or update memory another tab started (or this one before a reload) holds the
// chat too: the page turns off what it would refuse and says why until it ends.
const LOCK_POLL_MS = 2000;
let lockFollowed = false;

export async function lockFollow() {
  const card = document.getElementById("memory-card");
  if (card.querySelector("[data-memory-action].htmx-request")) return;  // this tab's own run
  let state = null, stage = "";
  try {
    const r = await fetch(card.dataset.progressUrl);
    if (r.ok) { state = r.headers.get("X-Memory-Progress"); stage = await r.text(); }
  } catch (err) { state = null; }
  const indicator = document.getElementById("memory-progress");
  if (state === "running") {
    lockFollowed = true;
    lockSet(true);
    indicator.classList.add("htmx-request");
    document.getElementById("memory-stage").textContent = stage;
    statusSay(S.chatLocked);
    setTimeout(lockFollow, LOCK_POLL_MS);
  } else if (lockFollowed) {
    lockFollowed = false;
    lockSet(false);
    indicator.classList.remove("htmx-request");
    statusSay("");
    budgetAfter();
  }
}

export async function indexProgress() {
  const line = document.getElementById("index-progress");
  let index = null;
  try {
    const r = await fetch(url("instanceUrl"));
    if (r.ok) index = (await r.json()).index;
  } catch (err) { index = null; }
  if (!index || !line) return;
  const behind = index.embedded < index.lines;
  line.hidden = !behind;
  const count = (n) => Number(n).toLocaleString(document.documentElement.lang || undefined);
  line.textContent = behind ? line.dataset.text
    .replace("%(embedded)s", count(index.embedded)).replace("%(lines)s", count(index.lines)) : "";
  if (behind) setTimeout(indexProgress, 5000);
}
