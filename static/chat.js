// The chat page: streams a reply over the WebSocket; the session file stays the truth,
// so after every turn (and on any hiccup) the newest messages are reloaded from the server.
// Every message control works through event delegation, so messages added later (a new turn,
// older pages, a swipe) need no re-wiring.
(function () {
  const root = document.getElementById("chat");
  if (!root) return;
  const instanceId = root.dataset.instance;
  const input = document.getElementById("input");
  const form = document.getElementById("send-form");
  const sendButton = document.getElementById("send-button");
  const stopButton = document.getElementById("stop-button");
  const statusLine = document.getElementById("status");
  const banner = document.getElementById("connection");
  const draftKey = `personalab-draft-${instanceId}`;
  const csrf = (document.cookie.match(/(?:^|; )csrftoken=([^;]*)/) || [])[1] || "";
  const S = JSON.parse(document.getElementById("chat-strings").textContent);
  const fill = (text, value) => text.replace("%(s)s", value);
  const warnings = new Map();
  let socket = null;
  let streaming = null;   // {el, raw} of the reply being written
  let busy = false;
  let queued = null;      // a frame typed while disconnected, sent on reconnect
  let retryDelay = 1000;
  let stale = false;      // the socket closed mid-reply: the page shows the file again on reconnect
  let loadingOlder = false;

  // --- rendering ---------------------------------------------------------------------------
  const PROGRESS = /\[PROGRESS:([^:\]\n]{1,60}):([^\]\n]{1,60})\]/g;

  function escapeHtml(text) {
    return text.replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  }

  // Pictures are never loaded (no request to another site), but the reader keeps what the
  // reply said: its description, linked to where the picture is. DOMPurify then cleans the links.
  function imagesAsLinks(box) {
    for (const img of box.querySelectorAll("img")) {
      const link = box.ownerDocument.createElement("a");
      link.setAttribute("href", img.getAttribute("src") || "");
      link.textContent = `🖼 ${img.getAttribute("alt") || img.getAttribute("src") || ""}`;
      img.replaceWith(link);
    }
  }

  function markdownHtml(raw) {
    // The marker stays verbatim in the file; on screen it becomes a small badge.
    const withBadges = raw.replace(PROGRESS, (all, point, status) =>
      `<span class="progress-badge" title="${escapeHtml(all)}">◆ ${escapeHtml(point)} · ${escapeHtml(status)}</span>`);
    if (!window.marked || !window.DOMPurify) return escapeHtml(raw).replace(/\n/g, "<br>");
    // Parsed and cleaned inside a <template>, whose document is inert: nothing in it loads,
    // runs or is even checked against the page's Content-Security-Policy; only the cleaned
    // markup reaches the page.
    const template = document.createElement("template");
    template.innerHTML = window.marked.parse(withBadges, {breaks: true, gfm: true});
    const box = template.content.ownerDocument.createElement("div");
    box.append(...template.content.childNodes);
    imagesAsLinks(box);
    window.DOMPurify.sanitize(box, {...PURIFY, IN_PLACE: true});
    return box.innerHTML;
  }

  // What a reply or a card may keep: text, formatting and links. Never a data-* attribute
  // (htmx obeys data-hx-*, and our own controls are found by data-*), a style, an event handler,
  // or a link to anything but a web page or a mail address; an id or name is prefixed so it
  // can never stand in for one of the page's own elements.
  const PURIFY = {
    FORBID_TAGS: ["style", "form", "input", "textarea", "button", "img", "iframe", "select"],
    FORBID_ATTR: ["style"],
    ALLOW_DATA_ATTR: false,
    ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.\-]+(?:[^a-z+.\-:]|$))/i,
    SANITIZE_NAMED_PROPS: true,
  };

  // htmx never looks inside rendered text (hx-disable covers every descendant), whatever
  // markup got through.
  function renderText(el, raw) {
    el.setAttribute("hx-disable", "");
    el.dataset.raw = raw;
    el.innerHTML = markdownHtml(raw);
    el.dataset.rendered = "1";
  }

  function renderAll(scope) {
    for (const el of (scope || document).querySelectorAll(".md:not([data-rendered])")) {
      renderText(el, el.textContent.replace(/^\n+|\s+$/g, ""));
    }
    if (window.localTimes) window.localTimes(scope || document);
  }

  function messagesBox() { return document.getElementById("messages"); }
  function currentSession() { return messagesBox().dataset.session || root.dataset.session; }

  function scrollToNewest() {
    const box = messagesBox();
    box.scrollTop = box.scrollHeight;
  }

  function nearNewest() {
    const box = messagesBox();
    return box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  }

  function fragment(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content;
  }

  function adopt(scope) {
    if (window.htmx) window.htmx.process(scope);
    renderAll(scope);
  }

  function addMessage(role, raw, label) {
    const article = document.createElement("article");
    article.className = "msg " + role + " pending";
    article.dataset.testid = "message";
    article.dataset.role = role;
    const bubble = document.createElement("div");
    bubble.className = "bubble";
    const who = document.createElement("header");
    who.className = "who";
    who.textContent = label;
    const body = document.createElement("div");
    body.className = "text md";
    bubble.append(who, body);
    article.append(bubble);
    const follow = nearNewest();
    messagesBox().append(article);
    renderText(body, raw);
    if (follow) scrollToNewest();
    return body;
  }

  // The message at the top of the view, so a reload puts a reader who scrolled back where
  // they were instead of at the newest line.
  function readingPlace() {
    if (nearNewest()) return null;
    const box = messagesBox();
    const top = box.getBoundingClientRect().top;
    const shown = [...box.querySelectorAll(".msg[data-index]")]
      .find(m => m.getBoundingClientRect().bottom > top);
    return shown ? {session: currentSession(), index: shown.dataset.index,
                    offset: shown.getBoundingClientRect().top - top} : null;
  }

  async function returnTo(place) {
    const find = () => messagesBox().querySelector(`.msg[data-index="${place.index}"]`);
    while (!find() && await loadOlder()) { /* page back until the reader's line is there */ }
    const line = find();
    if (!line) { scrollToNewest(); return; }
    const box = messagesBox();
    const offset = line.getBoundingClientRect().top - box.getBoundingClientRect().top;
    box.scrollTop += offset - place.offset;
  }

  async function reloadFromFile() {
    const [messages, outline] = await Promise.all([
      fetch(`/instances/${instanceId}/messages`).then(r => r.text()),
      fetch(`/instances/${instanceId}/outline`).then(r => r.text()),
    ]);
    const place = readingPlace();
    const box = messagesBox();
    const fresh = fragment(messages).firstElementChild;
    box.replaceWith(fresh);
    document.getElementById("outline").outerHTML = outline;
    adopt(fresh);
    sessionShow(currentSession());
    watchScroll();
    if (place && place.session === currentSession()) await returnTo(place);
    else scrollToNewest();
  }

  // A branch or a summarize can move the instance to a new session: the title and the export
  // links follow it, so an export never silently hands back the old session.
  function sessionShow(sessionId) {
    document.querySelectorAll("[data-current-session]").forEach(el => { el.textContent = sessionId; });
    document.querySelectorAll("a[data-export]").forEach(a => {
      a.href = `/api/v1/instances/${instanceId}/sessions/${sessionId}/export?format=${a.dataset.export}`;
    });
  }

  // --- older messages on scroll -------------------------------------------------------------
  async function loadOlder() {
    const marker = messagesBox().querySelector(".older");
    if (!marker || loadingOlder) return false;
    loadingOlder = true;
    try {
      const r = await fetch(`/instances/${instanceId}/messages?before=${marker.dataset.before}`);
      if (!r.ok) return false;
      const box = messagesBox();
      // Keep the line the reader was at in place. Chromium's scroll anchoring already moves
      // the view by the inserted height and Safari's does not, so measure instead of adding it.
      const older = fragment(await r.text());
      const anchor = marker.nextElementSibling;
      const was = anchor ? anchor.getBoundingClientRect().top : 0;
      const nodes = [...older.children];
      marker.replaceWith(older);
      for (const node of nodes) adopt(node);
      if (anchor) box.scrollTop += anchor.getBoundingClientRect().top - was;
      return true;
    } finally {
      loadingOlder = false;
    }
  }

  function watchScroll() {
    messagesBox().addEventListener("scroll", () => {
      if (messagesBox().scrollTop < 300) loadOlder();
    }, {passive: true});
  }

  // --- warnings and budget ------------------------------------------------------------------
  function renderWarnings() {
    const area = document.getElementById("warnings");
    const list = document.getElementById("warning-list");
    area.hidden = warnings.size === 0;
    document.getElementById("warning-count").textContent = warnings.size;
    list.replaceChildren();
    for (const w of warnings.values()) {
      const item = document.createElement("li");
      item.textContent = "⚠️ " + w.message + (w.current_value != null ? `（${w.current_value}）` : "");
      item.title = S.warningDetails;
      item.addEventListener("dblclick", () => showWarning(w));
      list.append(item);
    }
  }

  function showWarning(w) {
    const detail = document.getElementById("warning-detail");
    detail.replaceChildren();
    for (const [label, value] of [[S.warningType, w.message], [S.warningCategory, w.category],
                                  [S.warningValue, w.current_value],
                                  [S.warningThreshold, w.threshold],
                                  [S.warningSuggestion, w.suggestion]]) {
      if (value == null || value === "") continue;
      const dt = document.createElement("dt"); dt.textContent = label;
      const dd = document.createElement("dd"); dd.textContent = value;
      detail.append(dt, dd);
    }
    document.getElementById("warning-dialog").showModal();
  }

  document.getElementById("warning-badge").addEventListener("click", () => {
    const list = document.getElementById("warning-list");
    list.hidden = !list.hidden;
  });

  async function renderBudget(traceId) {
    if (!traceId) return;
    // The light form: the bar needs the sections' tokens, not the messages sent.
    const response = await fetch(`/api/v1/traces/${traceId}?fields=sections`);
    if (!response.ok) return;
    const trace = await response.json();
    const bar = document.getElementById("budget");
    const limit = trace.max_total_tokens || 1;
    bar.replaceChildren();
    for (const section of trace.sections || []) {
      if (!section.tokens) continue;
      const part = document.createElement("span");
      // The legend's three colours: the conversation (a middle section too), the rest of the
      // middle (director, memory, notes at a depth), and the head.
      part.className = "seg seg-" + (section.name === "conversation" ? "history"
                                     : section.region === "head" ? "head" : "middle");
      part.style.width = Math.max(0.3, 100 * section.tokens / limit) + "%";
      part.title = `${section.name}: ${section.tokens} tokens (${(100 * section.tokens / limit).toFixed(1)}%)`;
      bar.append(part);
    }
    const label = document.createElement("small");
    label.textContent = ` ${trace.total_tokens} / ${limit} tokens`;
    bar.append(label);
  }

  function latestTraceId() {
    const link = [...document.querySelectorAll('#messages .msg.assistant a[href^="/traces/"]')].pop();
    return link ? link.getAttribute("href").split("/")[2] : null;
  }

  // --- the stream ---------------------------------------------------------------------------
  let renderPending = false;
  function renderStreaming() {
    if (renderPending) return;
    renderPending = true;
    requestAnimationFrame(() => {
      renderPending = false;
      if (!streaming) return;
      const follow = nearNewest();
      renderText(streaming.el, streaming.raw);
      if (follow) scrollToNewest();
    });
  }

  // A reply already streaming when this socket opened (another tab, another worker, or this
  // page before a reload): the server sends what the file holds, then only the live tokens.
  function followStream(event) {
    const line = document.getElementById("streaming-line");
    const el = line ? line.querySelector(".text") : addMessage("assistant", "", "…");
    const fold = el.parentElement.querySelector("[data-testid=reasoning-live] .md");
    streaming = {el, raw: event.content, thought: fold || undefined};
    if (event.reasoning) {
      if (fold) fold.textContent = event.reasoning; else showReasoning(event.reasoning);
    }
    renderStreaming();
  }

  // The model's reasoning as it streams, folded above the reply (text only, never markup).
  function showReasoning(text) {
    if (!streaming) streaming = {el: addMessage("assistant", "", "…"), raw: ""};
    if (!streaming.thought) {
      const fold = document.createElement("details");
      fold.className = "reasoning";
      fold.dataset.testid = "reasoning-live";
      const summary = document.createElement("summary");
      summary.textContent = S.reasoning;
      const body = document.createElement("div");
      body.className = "md";
      body.setAttribute("hx-disable", "");
      fold.append(summary, body);
      streaming.el.before(fold);
      streaming.thought = body;
    }
    streaming.thought.textContent += text;
  }

  // --- asides (seed 003 §14 Chat): answered in the side panel, never part of the story -------
  const asideForm = document.getElementById("aside-form");
  const asideLog = document.getElementById("aside-log");
  const asideStatus = document.getElementById("aside-status");
  const asideStop = document.getElementById("aside-stop");
  let asideAnswer = null;

  function asideAsking(asking) {
    asideForm.querySelector("[data-testid=aside-send]").disabled = asking;
    asideStop.hidden = !asking;
  }

  function asideLine(role, name, text) {
    const line = document.createElement("p");
    line.className = "aside-line " + role;
    const who = document.createElement("strong");
    who.textContent = name + ": ";
    const body = document.createElement("span");
    body.textContent = text;
    line.append(who, body);
    asideLog.append(line);
    return body;
  }

  function onAsideEvent(event) {
    if (event.type === "aside_token") {
      if (!asideAnswer) asideAnswer = asideLine("assistant", event.name, "");
      asideAnswer.textContent += event.content;
    } else if (event.type === "aside_done") {
      if (!asideAnswer) asideAnswer = asideLine("assistant", event.name, "");
      asideAnswer.previousSibling.textContent = event.name + ": ";
      asideAnswer.textContent = event.content;
      asideStatus.textContent = event.error ? S.error + " " + event.error
        : [event.stopped ? S.asideStopped : "", event.kept ? S.asideKept : ""]
          .filter(Boolean).join(" · ");
      asideAnswer = null;
      asideAsking(false);
    } else if (event.type === "aside_error") {
      asideStatus.textContent = S.error + " " + event.message;
      asideAnswer = null;
      asideAsking(false);
    }
  }

  if (asideForm) {
    asideForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = asideForm.elements.content.value;
      if (!text.trim() || !connected()) { if (!connected()) asideStatus.textContent = S.notConnected; return; }
      asideLine("user", S.you, text);
      asideForm.elements.content.value = "";
      asideStatus.textContent = "";
      asideAsking(true);
      socket.send(JSON.stringify({type: "aside", speaker: asideForm.elements.speaker.value, content: text}));
    });
    asideStop.addEventListener("click", () => {
      if (connected()) socket.send(JSON.stringify({type: "aside_stop"}));
    });
  }

  // --- impersonate: the model writes the player's next message into the box -----------------
  // As in SillyTavern the suggestion streams into the input box and nothing is sent. Unlike
  // SillyTavern, text already typed is kept: the suggestion goes after it, following a space.
  const impersonateButton = document.getElementById("impersonate-button");
  let impersonating = null;  // {before, prefix, text}

  function saveDraft() {
    if (input.value) localStorage.setItem(draftKey, input.value);
    else localStorage.removeItem(draftKey);
  }

  function impersonateEnd(status) {
    impersonating = null;
    input.readOnly = false;
    setBusy(false);
    statusLine.textContent = status;
    saveDraft();
  }

  function onImpersonateEvent(event) {
    if (!impersonating) return;
    if (event.type === "impersonate_token") {
      impersonating.text += event.content;
      input.value = impersonating.prefix + impersonating.text;
      saveDraft();
    } else if (event.type === "impersonate_done" && !event.error) {
      input.value = impersonating.prefix + event.content;
      impersonateEnd(event.stopped ? S.impersonateStopped : "");
      input.focus();
    } else {
      input.value = impersonating.before;  // a failure never costs what was typed
      impersonateEnd(fill(S.impersonateFailed, event.error || event.message || ""));
    }
  }

  impersonateButton.addEventListener("click", () => {
    if (busy) return;
    if (!connected()) { showBanner(S.notConnected); return; }
    const before = input.value;
    impersonating = {before, prefix: before.trim() ? before.replace(/\s+$/, "") + " " : "", text: ""};
    input.readOnly = true;
    setBusy(true);
    statusLine.textContent = S.impersonating;
    socket.send(JSON.stringify({type: "impersonate"}));
  });

  function onEvent(event) {
    if (event.type.startsWith("aside_")) {
      onAsideEvent(event);
    } else if (event.type.startsWith("impersonate_")) {
      onImpersonateEvent(event);
    } else if (event.type === "reasoning") {
      if (busy) localStorage.removeItem(draftKey);  // this tab's message was taken
      showReasoning(event.content);
    } else if (event.type === "stream") {
      followStream(event);
    } else if (event.type === "token") {
      if (busy) localStorage.removeItem(draftKey);  // this tab's message was taken
      if (!streaming) streaming = {el: addMessage("assistant", "", "…"), raw: ""};
      streaming.raw += event.content;
      renderStreaming();
    } else if (event.type === "warning") {
      warnings.set(event.category, event);
      renderWarnings();
    } else if (event.type === "error") {
      statusLine.textContent = S.error + " " + event.message;
      if (event.code !== "busy" || !streaming) finishTurn(event.trace_id);
    } else if (event.type === "speaker") {
      // several characters: each reply of the round gets its own bubble, named (textContent);
      // the first takes over the "…" bubble this tab opened when it sent, so none stays empty
      if (streaming && !streaming.raw && !streaming.thought) {
        streaming.el.parentElement.querySelector(".who").textContent = event.name;
      } else {
        streaming = {el: addMessage("assistant", "", event.name), raw: ""};
      }
    } else if (event.type === "done" && event.round_end === false) {
      streaming = null;  // the next character of the round answers; the round is still busy
    } else if (event.type === "done") {
      localStorage.removeItem(draftKey);
      // a round nobody answered (manual order, or every member muted) says how to pick one
      statusLine.textContent = event.interrupted ? S.stopped
        : (event.round_end && event.replies === 0 ? S.nobodyAnswered : "");
      finishTurn(event.trace_id);
    }
  }

  function finishTurn(traceId) {
    streaming = null;
    setBusy(false);
    reloadFromFile().then(() => renderBudget(traceId || latestTraceId()));
  }

  function setBusy(value) {
    busy = value;
    sendButton.disabled = value;
    document.getElementById("regenerate-button").disabled = value;
    document.getElementById("continue-button").disabled = value;
    document.getElementById("impersonate-button").disabled = value;
    stopButton.disabled = !value;
  }

  // --- connection: never lose what the player typed -----------------------------------------
  function showBanner(text) {
    banner.textContent = text;
    banner.hidden = !text;
  }

  function connected() { return socket && socket.readyState === WebSocket.OPEN; }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/chat/${instanceId}/`);
    socket.addEventListener("message", (m) => onEvent(JSON.parse(m.data)));
    socket.addEventListener("close", () => {
      const seconds = Math.round(retryDelay / 1000);
      showBanner(queued ? S.queued : fill(S.disconnected, seconds));
      if (impersonating) impersonateEnd("");  // what came so far stays in the box
      if (busy) { streaming = null; setBusy(false); stale = true; }
      // Read again on reconnect too: a server going down can still answer this read, with the
      // reply "writing…" that only the next server completes in the file.
      if (stale) reloadFromFile().catch(() => {});
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 15000);
    });
    socket.addEventListener("open", () => {
      retryDelay = 1000;
      showBanner("");
      const frame = queued;
      queued = null;
      // The file first: a reply cut by the outage shows as it was kept, then the queued line.
      const read = stale ? reloadFromFile().then(() => { stale = false; }).catch(() => {})
                         : Promise.resolve();
      if (frame) read.then(() => deliver(frame));
    });
  }

  function deliver(frame) {
    if (frame.type === "send") {
      addMessage("user", frame.content, S.you);
      input.value = "";
    }
    streaming = {el: addMessage("assistant", "", "…"), raw: ""};
    scrollToNewest();  // the player asked: show where the answer comes
    setBusy(true);
    statusLine.textContent = "";
    socket.send(JSON.stringify(frame));
  }

  function send(frame) {
    if (!connected()) {
      if (frame.type === "send") {
        queued = frame;
        showBanner(S.queued);
      } else {
        showBanner(S.notConnected);
      }
      return;
    }
    deliver(frame);
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value;
    if (!text.trim() || busy) return;
    if (/^\/imp(ersonate)?$/i.test(text.trim())) {  // SillyTavern's slash command
      input.value = "";
      impersonateButton.click();
      return;
    }
    localStorage.setItem(draftKey, text);
    send({type: "send", content: text});
  });
  // A touch keyboard has no Shift+Enter, so there Enter is a new line and Send sends (as
  // SillyTavern's "send on Enter: auto" does on phones).
  const touchTyping = window.matchMedia("(pointer: coarse)").matches;
  if (touchTyping) input.placeholder = S.placeholderTouch;
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !touchTyping) { e.preventDefault(); form.requestSubmit(); }
  });
  input.addEventListener("input", () => {
    saveDraft();
    if (queued && input.value !== queued.content) queued = null;
  });
  stopButton.addEventListener("click", () => connected() && socket.send(JSON.stringify({type: "stop"})));
  // With no reply last (a chat imported mid-turn, a reply deleted), ↻ and → ask for the
  // missing one, as SillyTavern does: the character answers the lines already there.
  function lastLine() { return [...messagesBox().querySelectorAll(".msg[data-role]")].pop(); }
  function replyMissing() { const last = lastLine(); return !!last && last.dataset.role !== "assistant"; }
  document.getElementById("regenerate-button").addEventListener("click", () => {
    if (busy) return;
    if (replyMissing()) { send({type: "trigger"}); return; }
    if (!connected()) { send({type: "regenerate"}); return; }
    const last = lastLine();
    if (last && last.dataset.role === "assistant") last.remove();
    send({type: "regenerate"});
  });
  document.getElementById("continue-button").addEventListener("click", () => {
    if (!busy) send({type: replyMissing() ? "trigger" : "continue"});
  });
  // "Answer now" on a member of a group: that character answers the lines already there.
  document.addEventListener("click", (e) => {
    const button = e.target.closest("[data-trigger-speaker]");
    if (!button || busy) return;
    send({type: "trigger", speaker: button.dataset.triggerSpeaker});
    const drawer = document.querySelector("[data-testid=drawer-toggle]");  // show the reply
    if (drawer && drawer.offsetParent && drawer.getAttribute("aria-expanded") === "true") drawer.click();
  });

  // --- inline actions on a message ----------------------------------------------------------
  function toast(text, action) {
    const box = document.getElementById("toast");
    box.replaceChildren();
    const span = document.createElement("span");
    span.textContent = text;
    box.append(span);
    if (action) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "secondary";
      button.dataset.testid = "undo";
      button.textContent = action.label;
      button.addEventListener("click", () => { box.hidden = true; action.run(); });
      box.append(button);
    }
    box.hidden = false;
    clearTimeout(box.timer);
    box.timer = setTimeout(() => { box.hidden = true; }, action ? action.seconds * 1000 : 4000);
  }

  async function post(path, fields) {
    const body = new URLSearchParams({session: currentSession(), ...fields});
    const r = await fetch(`/instances/${instanceId}/${path}`, {
      method: "POST", body, headers: {"X-CSRFToken": csrf}});
    return r;
  }

  async function refusal(r) {
    try { return (await r.json()).error.message; } catch (e) { return `Refused (${r.status}).`; }
  }

  function lineFields(article) {
    return {index: article.dataset.index, fp: article.dataset.fp};
  }

  async function editStart(article) {
    const text = article.querySelector(".text");
    if (article.dataset.editing) return;
    article.dataset.editing = "1";
    // The file's text (macros like {{user}} as written), not what the page shows.
    const query = new URLSearchParams({session: currentSession(), ...lineFields(article)});
    const source = await fetch(`/instances/${instanceId}/messages/source?${query}`);
    if (!source.ok) { delete article.dataset.editing; toast(await refusal(source)); return; }
    const box = document.createElement("textarea");
    box.className = "edit-box";
    box.dataset.testid = "edit-box";
    box.value = (await source.json()).content;
    box.rows = Math.min(12, Math.max(2, box.value.split("\n").length + 1));
    // Buttons too: a phone has no Escape, and there Enter is a new line (see touchTyping).
    const bar = fragment(`<div class="edit-actions"><button type="button" data-testid="edit-save">${escapeHtml(S.save)}</button> <button type="button" class="secondary" data-testid="edit-cancel">${escapeHtml(S.cancel)}</button></div>`).firstElementChild;
    text.hidden = true;
    text.after(box, bar);
    box.focus();
    const cancel = () => { box.remove(); bar.remove(); text.hidden = false; delete article.dataset.editing; };
    const save = async () => {
      const r = await post("messages/edit", {...lineFields(article), text: box.value});
      if (!r.ok) { toast(await refusal(r)); return; }
      const fresh = fragment(await r.text()).firstElementChild;
      article.replaceWith(fresh);
      adopt(fresh);
    };
    bar.querySelector("[data-testid=edit-save]").addEventListener("click", save);
    bar.querySelector("[data-testid=edit-cancel]").addEventListener("click", cancel);
    box.addEventListener("keydown", async (e) => {
      if (e.key === "Escape") cancel();
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing && !touchTyping) {
        e.preventDefault();
        await save();
      }
    });
  }

  async function remove(article) {
    const r = await post("messages/delete", lineFields(article));
    if (!r.ok) { toast(await refusal(r)); return; }
    const {undo_token: token} = await r.json();
    for (let next = article.nextElementSibling; next; next = next.nextElementSibling) {
      if (next.dataset.index) next.dataset.index = Number(next.dataset.index) - 1;
    }
    article.remove();
    const seconds = Number(root.dataset.undoSeconds) || 30;
    toast(S.deleted, {label: S.undo, seconds, run: async () => {
      const u = await post("messages/undo", {token});
      if (!u.ok) { toast(await refusal(u)); return; }
      await reloadFromFile();
      toast(S.restored);
    }});
  }

  async function hide(article, control) {
    const hidden = control.dataset.hidden === "1" ? "0" : "1";
    const r = await post("messages/hide", {...lineFields(article), hidden});
    if (!r.ok) { toast(await refusal(r)); return; }
    const fresh = fragment(await r.text()).firstElementChild;
    article.replaceWith(fresh);
    adopt(fresh);
    toast(hidden === "1" ? S.hidden : S.unhidden);
  }

  async function branch(article) {
    const r = await post("messages/branch", lineFields(article));
    if (!r.ok) { toast(await refusal(r)); return; }
    const data = await r.json();
    toast(fill(S.branched, data.session_id));
    await reloadFromFile();
  }

  async function copy(article) {
    const text = article.querySelector(".text");
    try {
      await navigator.clipboard.writeText(text.dataset.raw || text.textContent);
      toast(S.copied);
    } catch (e) {
      toast(S.copyRefused);
    }
  }

  function drawer(open) {
    root.classList.toggle("drawer-open", open);
    document.querySelector("[data-testid=drawer-toggle]").setAttribute("aria-expanded", String(open));
  }

  // Escape closes the drawer (on a phone it covers the chat), unless a dialog is open: the
  // dialog takes its own Escape.
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || !root.classList.contains("drawer-open")) return;
    if (document.querySelector("dialog[open]")) return;
    drawer(false);
    document.querySelector("[data-testid=drawer-toggle]").focus();
  });

  root.addEventListener("click", (e) => {
    const toggle = e.target.closest("[data-testid=drawer-toggle]");
    if (toggle) { drawer(!root.classList.contains("drawer-open")); return; }
    const control = e.target.closest("[data-action]");
    if (!control) return;
    const action = control.dataset.action;
    const article = control.closest(".msg");
    if (action === "drawer-close") drawer(false);
    else if (action === "older") loadOlder();
    else if (action === "edit") editStart(article);
    else if (action === "delete") remove(article);
    else if (action === "branch") branch(article);
    else if (action === "hide") hide(article, control);
    else if (action === "copy") copy(article);
    else if (action === "swipe-new") document.getElementById("regenerate-button").click();
  });

  // --- summarize / update memory: stages and elapsed time -----------------------------------
  const memoryCard = document.getElementById("memory-card");
  memoryCard.addEventListener("htmx:beforeRequest", (e) => {
    if (!e.target.dataset.memoryAction) return;
    const started = Date.now();
    const stage = document.getElementById("memory-stage");
    const elapsed = document.getElementById("memory-elapsed");
    stage.textContent = S.starting;
    document.getElementById("memory-result").replaceChildren();
    const timer = setInterval(async () => {
      elapsed.textContent = `${Math.round((Date.now() - started) / 1000)} s`;
      const r = await fetch(memoryCard.dataset.progressUrl);
      if (r.ok) stage.textContent = await r.text();
    }, 500);
    e.target.addEventListener("htmx:afterRequest", () => {
      clearInterval(timer);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const result = document.getElementById("memory-result");
      const took = document.createElement("small");
      took.className = "muted";
      took.textContent = ` (${fill(S.took, seconds)})`;
      result.append(took);
      reloadFromFile();
    }, {once: true});
  });

  // An imported chat is embedded in the background: say how far while it is not done.
  const indexLine = document.getElementById("index-progress");
  async function indexProgress() {
    let index = null;
    try {
      const r = await fetch(`/api/v1/instances/${instanceId}`);
      if (r.ok) index = (await r.json()).index;
    } catch (err) { index = null; }
    if (!index || !indexLine) return;
    const behind = index.embedded < index.lines;
    indexLine.hidden = !behind;
    indexLine.textContent = behind ? " · " + indexLine.dataset.text
      .replace("%(embedded)s", index.embedded).replace("%(lines)s", index.lines) : "";
    if (behind) setTimeout(indexProgress, 5000);
  }

  if (window.htmx) window.htmx.onLoad((el) => renderAll(el));
  const draft = localStorage.getItem(draftKey);
  if (draft && !input.value) input.value = draft;
  renderAll(document);
  watchScroll();
  connect();
  scrollToNewest();
  renderBudget(latestTraceId());
  indexProgress();
})();
