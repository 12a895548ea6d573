// The chat page: streams a reply over the WebSocket; the session file stays the truth,
// so after every turn (and on any hiccup) the message list is reloaded from the server.
(function () {
  const root = document.getElementById("chat");
  if (!root) return;
  const instanceId = root.dataset.instance;
  const input = document.getElementById("input");
  const form = document.getElementById("send-form");
  const sendButton = document.getElementById("send-button");
  const stopButton = document.getElementById("stop-button");
  const statusLine = document.getElementById("status");
  const warnings = new Map();
  let socket = null;
  let streamingText = null;
  let busy = false;

  function setBusy(value) {
    busy = value;
    input.disabled = value;
    sendButton.disabled = value;
    document.getElementById("regenerate-button").disabled = value;
    document.getElementById("continue-button").disabled = value;
    stopButton.disabled = !value;
  }

  function messagesBox() { return document.getElementById("messages"); }

  function scrollToNewest() {
    const box = messagesBox();
    box.scrollTop = box.scrollHeight;
  }

  function nearNewest() {
    const box = messagesBox();
    return box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  }

  function addMessage(role, text, label) {
    const box = document.createElement("div");
    box.className = "msg " + role;
    const who = document.createElement("div");
    who.className = "who";
    who.textContent = label;
    const body = document.createElement("div");
    body.className = "text plain";
    body.textContent = text;
    box.append(who, body);
    messagesBox().append(box);
    scrollToNewest();
    return body;
  }

  async function reloadFromFile() {
    const [messages, outline] = await Promise.all([
      fetch(`/instances/${instanceId}/messages`).then(r => r.text()),
      fetch(`/instances/${instanceId}/outline`).then(r => r.text()),
    ]);
    messagesBox().outerHTML = messages;
    document.getElementById("outline").outerHTML = outline;
    scrollToNewest();
    followStreamingLine();
  }

  function renderWarnings() {
    const area = document.getElementById("warnings");
    const list = document.getElementById("warning-list");
    area.hidden = warnings.size === 0;
    document.getElementById("warning-count").textContent = warnings.size;
    list.replaceChildren();
    for (const w of warnings.values()) {
      const item = document.createElement("li");
      item.textContent = "⚠️ " + w.message + (w.current_value != null ? `（${w.current_value}）` : "");
      item.title = "Double-click for details";
      item.addEventListener("dblclick", () => showWarning(w));
      list.append(item);
    }
  }

  function showWarning(w) {
    const detail = document.getElementById("warning-detail");
    detail.replaceChildren();
    for (const [label, value] of [["类型", w.message], ["分类", w.category], ["当前值", w.current_value],
                                  ["建议阈值", w.threshold], ["建议操作", w.suggestion]]) {
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
    const response = await fetch(`/api/v1/traces/${traceId}`);
    if (!response.ok) return;
    const trace = await response.json();
    const bar = document.getElementById("budget");
    const limit = trace.max_total_tokens || 1;
    bar.replaceChildren();
    for (const section of trace.sections || []) {
      if (!section.tokens) continue;
      const part = document.createElement("span");
      part.className = "seg seg-" + section.region;
      part.style.width = Math.max(0.3, 100 * section.tokens / limit) + "%";
      part.title = `${section.name}: ${section.tokens} tokens`;
      bar.append(part);
    }
    const label = document.createElement("small");
    label.textContent = ` ${trace.total_tokens} / ${limit} tokens`;
    bar.append(label);
  }

  function latestTraceId() {
    const link = [...document.querySelectorAll('.msg.assistant a[href^="/traces/"]')].pop();
    return link ? link.getAttribute("href").split("/")[2] : null;
  }

  function onEvent(event) {
    if (event.type === "token") {
      if (!streamingText) streamingText = addMessage("assistant", "", "…");
      const follow = nearNewest();
      streamingText.textContent += event.content;
      if (follow) scrollToNewest();
    } else if (event.type === "warning") {
      warnings.set(event.category, event);
      renderWarnings();
    } else if (event.type === "error") {
      statusLine.textContent = "Error: " + event.message;
      if (event.code !== "busy" || !streamingText) finishTurn(event.trace_id);
    } else if (event.type === "done") {
      statusLine.textContent = event.interrupted ? "Stopped: the partial reply is saved." : "";
      finishTurn(event.trace_id);
    }
  }

  function finishTurn(traceId) {
    streamingText = null;
    setBusy(false);
    reloadFromFile().then(() => renderBudget(traceId || latestTraceId()));
    input.focus();
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/chat/${instanceId}/`);
    socket.addEventListener("message", (m) => onEvent(JSON.parse(m.data)));
    socket.addEventListener("close", () => {
      statusLine.textContent = "Connection lost; reconnecting… (the reply so far is in the file)";
      if (busy) { streamingText = null; setBusy(false); reloadFromFile(); }
      setTimeout(connect, 1500);
    });
    socket.addEventListener("open", () => { if (statusLine.textContent.startsWith("Connection")) statusLine.textContent = ""; });
  }

  function send(frame, userText) {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      statusLine.textContent = "Not connected yet; try again in a moment.";
      return;
    }
    if (userText) addMessage("user", userText, "You");
    streamingText = addMessage("assistant", "", "…");
    setBusy(true);
    statusLine.textContent = "";
    socket.send(JSON.stringify(frame));
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value;
    if (!text.trim() || busy) return;
    input.value = "";
    send({type: "send", content: text}, text);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });
  stopButton.addEventListener("click", () => socket && socket.send(JSON.stringify({type: "stop"})));
  document.getElementById("regenerate-button").addEventListener("click", () => {
    if (busy) return;
    const last = messagesBox().querySelector(".msg.assistant:last-of-type");
    if (last) last.remove();
    send({type: "regenerate"});
  });
  document.getElementById("continue-button").addEventListener("click", () => {
    if (!busy) send({type: "continue"});
  });

  // A reply streaming from another tab or an earlier page: follow it from the file.
  function followStreamingLine() {
    const line = document.getElementById("streaming-line");
    if (!line || busy) return;
    const session = root.dataset.session;
    const turn = line.dataset.turn;
    setTimeout(async function poll() {
      const r = await fetch(`/api/v1/instances/${instanceId}/sessions/${session}/current_response?turn=${turn}`);
      if (!r.ok) return;
      const data = await r.json();
      const text = line.querySelector(".text");
      text.textContent = data.content;
      text.classList.add("plain");
      if (data.status === "streaming") setTimeout(poll, 500);
      else reloadFromFile().then(() => renderBudget(latestTraceId()));
    }, 300);
  }

  connect();
  scrollToNewest();
  followStreamingLine();
  renderBudget(latestTraceId());
})();
