// The WebSocket and the reply it streams. Typed text is never lost: a draft is kept until the
// server starts answering it, a line typed while disconnected waits for the socket, and the
// reconnection backs off from 1 s to 5 s, and tries at once when the tab is shown again or the
// network comes back (a phone that slept, a server restarted).
import {S, fill, root, touch, url} from "./config.js";
import {renderText} from "./render.js";
import {
  addMessage, choosingShow, lastLine, nearNewest, reloadFromFile, scrollToNewest, speakerShow,
} from "./messages.js";
import {budgetShow, latestTraceId, warningAdd} from "./budget.js";

// streaming: {el, raw, shown, thought} of the reply; locked: a summarize / update memory of this tab
// holds the chat, so the server would refuse a turn (and another memory action) as busy.
export const turn = {busy: false, streaming: null, locked: false};
// Per account: staff open other accounts' chats, and a browser may be shared (page.js forgets
// every draft at log out).
const draftKey = `personalab-draft-${root.dataset.account}-${root.dataset.instance}`;
const input = document.getElementById("input");
const statusLine = document.getElementById("status");
const banner = document.getElementById("connection");
const handlers = [];   // [prefix, handler] for the events of asides and impersonation
const onClose = [];
const onOpen = [];
let socket = null;
let queued = null;      // a frame typed while disconnected, sent on reconnect
let retryDelay = 1000;
let retryTimer = null;  // the next reconnection, while the socket is closed
const RETRY_MAX_MS = 5000;
const TOO_MANY_CLOSE = 4429;  // chat/live/consumers.py
let stale = false;      // the socket closed mid-reply: the page shows the file again on reconnect
let opened = false;     // the socket was open once: until then a click waits for it
// A reply the page was made "writing…" may have ended before the socket opened: the server then
// streams nothing of it, so with no stream this long after opening, the file is read again.
const STREAM_WAIT_MS = 1500;

export function eventsOn(prefix, handler) { handlers.push([prefix, handler]); }
export function closeOn(handler) { onClose.push(handler); }
// Each time the socket opens, after a line that waited for it has gone.
export function openOn(handler) { onOpen.push(handler); }
// The page's first connection is still opening: a click waits for it rather than failing.
export function opening() { return !opened; }
export function statusSay(text) { statusLine.textContent = text; }
export function connected() { return socket && socket.readyState === WebSocket.OPEN; }
export function socketSend(frame) { socket.send(JSON.stringify(frame)); }
export function queuedDrop() {
  if (queued && queued.type === "send" && input.value !== queued.content) queued = null;
}

export function draftSave() {
  if (input.value) localStorage.setItem(draftKey, input.value);
  else localStorage.removeItem(draftKey);
}
let sentDraft = null;    // the message this tab sent, kept as the draft until the server takes it
// What this tab's last turn changed on the page, until the server answers it: {text (a line
// sent, else null), line (its bubble), followed (the reply this tab was following)}.
let pending = null;
export function draftKeep(text) { sentDraft = text; localStorage.setItem(draftKey, text); }
// The sent message was taken: its draft goes, but never what the player typed since (the next
// message, written while the reply streams, or text left in the box during ↻ / →).
function draftTaken() {
  if (sentDraft !== null && localStorage.getItem(draftKey) === sentDraft) {
    localStorage.removeItem(draftKey);
  }
  sentDraft = null;
}
export function draftRestore() {
  const draft = localStorage.getItem(draftKey);
  if (draft && !input.value) input.value = draft;
}

export function showBanner(text) {
  banner.textContent = text;
  banner.hidden = !text;
}

export function setBusy(value) {
  turn.busy = value;
  controlsShow();
}

export function lockSet(value) {
  turn.locked = value;
  controlsShow();
}

// What the server would refuse now is off: a turn while a reply streams or a memory action
// runs, a memory action while a reply streams or another one runs.
function controlsShow() {
  const held = turn.busy || turn.locked;
  const clicked = document.activeElement;
  for (const id of ["send-button", "regenerate-button", "continue-button", "impersonate-button"]) {
    document.getElementById(id).disabled = held;
  }
  // A button clicked with a mouse holds the focus, and turned off it dropped it on the page:
  // the next line typed went nowhere. (A touch screen keeps it in the box, static/chat/room.js,
  // or has its keyboard closed: focusing the box would open it.)
  if (held && !touch && clicked?.disabled && clicked.closest("#send-form")) {
    document.getElementById("input").focus({preventScroll: true});
  }
  for (const button of document.querySelectorAll("[data-memory-action]")) button.disabled = held;
  document.getElementById("stop-button").disabled = !turn.busy;
  // A message's changes too (actions.js refuses them while locked); the class reaches the
  // messages read again while it runs.
  root.classList.toggle("chat-locked", turn.locked);
}

// --- the stream ---------------------------------------------------------------------------
let renderPending = false;
function renderStreaming() {
  if (renderPending) return;
  renderPending = true;
  requestAnimationFrame(() => {
    renderPending = false;
    if (!turn.streaming) return;
    const follow = nearNewest();
    renderText(turn.streaming.el, turn.streaming.shown ?? turn.streaming.raw, {streaming: true});
    if (follow) scrollToNewest();
  });
}

// A reply already streaming when this socket opened (another tab, another worker, or this
// page before a reload): the server sends what the file holds, then only the live tokens.
function followStream(event) {
  const line = document.getElementById("streaming-line");
  const el = line ? line.querySelector(".text") : addMessage("assistant", "", "…");
  const fold = el.parentElement.querySelector("[data-testid=reasoning-live] .md");
  speakerShow(el, event);
  // joined mid-reply: the text as written until the reply ends (the cleaned text so far is
  // not sent, only what changed in it)
  turn.streaming = {el, raw: event.content, shown: null, thought: fold || undefined};
  if (event.reasoning) {
    if (fold) fold.textContent = event.reasoning; else showReasoning(event.reasoning);
  }
  renderStreaming();
}

// The model's reasoning as it streams, folded above the reply (text only, never markup).
function showReasoning(text) {
  if (!turn.streaming) turn.streaming = {el: addMessage("assistant", "", "…"), raw: ""};
  if (!turn.streaming.thought) {
    const fold = document.createElement("details");
    fold.className = "reasoning";
    fold.dataset.testid = "reasoning-live";
    const summary = document.createElement("summary");
    summary.textContent = S.reasoning;
    const body = document.createElement("div");
    body.className = "md";
    body.setAttribute("hx-disable", "");
    fold.append(summary, body);
    turn.streaming.el.before(fold);
    turn.streaming.thought = body;
  }
  turn.streaming.thought.textContent += text;
}

function onEvent(event) {
  const handled = handlers.find(([prefix]) => event.type.startsWith(prefix));
  if (handled) { handled[1](event); return; }
  if (event.type === "reasoning") {
    if (turn.busy) draftTaken();
    showReasoning(event.content);
    speakerShow(turn.streaming.el, event);
  } else if (event.type === "stream") {
    followStream(event);
  } else if (event.type === "idle") {
    writingLineCheck();
  } else if (event.type === "token") {
    if (turn.busy) draftTaken();
    if (!turn.streaming) turn.streaming = {el: addMessage("assistant", "", "…"), raw: ""};
    speakerShow(turn.streaming.el, event);  // named by the reply's first token
    turn.streaming.raw += event.content;
    // the reply as cleaned so far (names, stop strings, markers): its first shown_at
    // characters, then shown
    const streaming = turn.streaming;
    if (streaming.shown === undefined) streaming.shown = "";
    if (streaming.shown !== null && event.shown_at !== undefined) {
      streaming.shown = streaming.shown.slice(0, event.shown_at) + event.shown;
    }
    renderStreaming();
  } else if (event.type === "warning") {
    warningAdd(event);
  } else if (event.type === "error") {
    statusSay(S.error + " " + event.message);
    if (event.code === "busy") busyRefused();
    if (event.code !== "busy" || !turn.streaming) {
      const read = finishTurn(event.trace_id);
      if (event.code === "prompt_too_long") read.then(() => refusedKeptSay(event.message));
    }
  } else if (event.type === "speaker") {
    // several characters: each reply of the round gets its own bubble, named (textContent);
    // the first takes over the "…" bubble this tab opened when it sent, so none stays empty
    const streaming = turn.streaming;
    if (streaming && !streaming.raw && !streaming.thought) {
      speakerShow(streaming.el, event);
    } else {
      turn.streaming = {el: addMessage("assistant", "", event.name, event.avatar, event.letter),
                        raw: ""};
    }
  } else if (event.type === "done" && event.round_end === false) {
    const ended = turn.streaming;  // drawn as ended: no closing mark added any more
    if (ended) renderText(ended.el, ended.shown ?? ended.raw);
    turn.streaming = null;  // the next character of the round answers; the round is still busy
    budgetShow(event.trace_id);  // each reply's prompt, not only the round's last
  } else if (event.type === "done") {
    draftTaken();
    // a round nobody answered (manual order, or every member muted) says how to pick one
    const said = Boolean(turn.streaming && turn.streaming.raw.trim());
    // a stopped round names who never answered, as the page does after a reload
    const cut = event.unanswered?.length ? S.roundCut.replace("%(names)s", event.unanswered.join(", ")) : "";
    statusSay(cut || (event.interrupted ? (said ? S.stopped : S.stoppedBeforeReply)
      : (event.round_end && event.replies === 0 ? S.nobodyAnswered : "")));
    finishTurn(event.trace_id);
  }
}

// A turn refused as busy (another tab's reply, or a memory action, holds the chat) wrote
// nothing: its bubbles go, a line's words go back into the box, and the tab follows the reply
// it followed. A follower's Send is on, and that reply's first token took the sent line's draft:
// the words were lost (the box emptied, no draft, nothing in the file).
function busyRefused() {
  const sent = pending;
  pending = null;
  if (!sent) return;
  if (sent.text !== null) {
    input.value = input.value ? `${sent.text}\n${input.value}` : sent.text;
    sentDraft = null;  // not taken: a draft again, which the reply's end must not clear
    draftSave();
    sent.line.closest(".msg").remove();
  }
  const ours = turn.streaming;
  if (ours && ours !== sent.followed && !ours.raw && !ours.thought) {
    ours.el.closest(".msg").remove();
    turn.streaming = sent.followed;
  }
  setBusy(false);
}

// Send comes back once the file is read: a line sent while the read was under way was drawn,
// then the read's older list replaced it, and the next round streamed out of sight.
function finishTurn(traceId) {
  pending = null;
  turn.streaming = null;
  return reloadFromFile().then(() => budgetShow(traceId || latestTraceId()))
    .finally(() => setBusy(false));
}

// A refused turn keeps the player's line in the chat (docs/decisions/refused-turn.md): the
// page says how it gets its answer once the prompt fits.
function refusedKeptSay(message) {
  const last = lastLine();
  if (last && last.dataset.role === "user") statusSay(`${S.error} ${message} ${S.refusedKept}`);
}

// --- connection ---------------------------------------------------------------------------
export function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // A page showing a reply "writing…" asks to be told when none streams (an "idle" event).
  const writing = document.getElementById("streaming-line") ? "?writing=1" : "";
  socket = new WebSocket(`${scheme}://${location.host}${url("socketPath")}${writing}`);
  socket.addEventListener("message", (m) => onEvent(JSON.parse(m.data)));
  // A connect the server refuses (too many sockets or connects of the account: 4429 before the
  // handshake, docs/websocket.md) never opens: the browser hears 1006, as in an outage, and
  // the wait keeps doubling. A socket closed with 4429 once open flooded its account's frame
  // budget, which frees only as its window moves: the next try waits the longest.
  socket.addEventListener("close", (event) => {
    if (event.code === TOO_MANY_CLOSE) retryDelay = RETRY_MAX_MS;
    const seconds = Math.round(retryDelay / 1000);
    showBanner(queued ? S.queued : fill(S.disconnected, seconds));
    for (const handler of onClose) handler();
    if (turn.busy) { turn.streaming = null; setBusy(false); stale = true; }
    // Read again on reconnect too: a server going down can still answer this read, with the
    // reply "writing…" that only the next server completes in the file.
    if (stale) reloadFromFile().catch(() => {});
    retryTimer = setTimeout(reconnect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
  });
  socket.addEventListener("open", () => {
    opened = true;
    retryDelay = 1000;
    showBanner("");
    const frame = queued;
    queued = null;
    // The file first: a reply cut by the outage shows as it was kept, then the queued line.
    const read = stale ? reloadFromFile().then(() => { stale = false; unansweredSay(); })
                           .catch(() => {})
                       : Promise.resolve();
    read.then(() => {
      if (frame) deliver(frame);
      for (const handler of onOpen) handler();
    });
    if (document.getElementById("streaming-line")) setTimeout(writingLineCheck, STREAM_WAIT_MS);
  });
}

// The socket closed mid-turn and the file now ends with the player's line: the server went
// down before answering (a crash: `manage.py serve` starts it again), and ↻ asks for the reply
// (chat/play/redo.py). Another server may still be about to answer, hence "if none comes".
function unansweredSay() {
  const last = lastLine();
  if (last && last.dataset.role === "user" && !turn.busy
      && !document.getElementById("streaming-line")) statusSay(S.unanswered);
}

function writingLineCheck() {
  if (document.getElementById("streaming-line") && !turn.streaming && !turn.busy) {
    reloadFromFile().catch(() => {});
  }
}

function reconnect() {
  clearTimeout(retryTimer);
  retryTimer = null;
  connect();
}

// A closed socket waiting for its next try tries now: the player is back on the tab, or the
// device is online again, and the server may have come back meanwhile.
function reconnectNow() {
  if (retryTimer !== null && document.visibilityState === "visible") reconnect();
}
document.addEventListener("visibilitychange", reconnectNow);
addEventListener("online", reconnectNow);

function deliver(frame) {
  pending = {text: null, line: null, followed: turn.streaming};
  if (frame.type === "send") {
    pending.text = frame.content;
    pending.line = addMessage("user", frame.content, S.you, S.youAvatar, S.youLetter);
    input.value = "";
  }
  // The reply being replaced leaves the view as its new version streams in; a chat that ends
  // with the player's line keeps it, and the server answers it instead.
  const last = lastLine();
  if (frame.type === "regenerate" && last && last.dataset.role === "assistant") last.remove();
  // A one-character chat knows who answers; a group's bubble says the server is choosing who
  // does until its "speaker" event names it (never a nameless "…" bubble).
  turn.streaming = {el: addMessage("assistant", "", S.replyName || S.choosing,
                                   S.replyName ? S.replyAvatar : "", S.replyLetter), raw: ""};
  if (!S.replyName) choosingShow(turn.streaming.el);
  scrollToNewest();  // the player asked: show where the answer comes
  setBusy(true);
  statusSay("");
  socketSend(frame);
}

// A turn: sent now, or kept until the socket is there: a new line always, any other turn
// (↻, →, "Answer now") clicked while the page's first connection is still opening.
export function send(frame) {
  if (turn.locked) { statusSay(S.chatLocked); return; }  // Enter in the box while it runs
  if (!connected()) {
    if (frame.type === "send") {
      queued = frame;
      showBanner(S.queued);
    } else if (!opened && !queued) {
      queued = frame;
    } else {
      showBanner(S.notConnected);
    }
    return;
  }
  deliver(frame);
}
