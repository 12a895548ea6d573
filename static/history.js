// The history manager changes messages through the REST API, as the chat page does (one way in
// per action, the same checks and errors); the rows are then read again with a line saying what
// happened and, for an edit or a delete, an Undo. Addresses come from {% url %} in data-*.
const rows = document.getElementById("history-rows");
const csrf = (document.cookie.match(/(?:^|; )csrftoken=([^;]*)/) || [])[1] || "";

function api(method, address, body) {
  const headers = {"X-CSRFToken": csrf};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(address, {method, headers, credentials: "same-origin",
                         body: body === undefined ? undefined : JSON.stringify(body)});
}

async function refusal(response) {
  try { return (await response.json()).error.message; } catch (e) { return `Refused (${response.status}).`; }
}

function notice(text, {error = false, undo = null} = {}) {
  const box = document.createElement(error ? "p" : "div");
  box.className = error ? "notice error" : "notice";
  box.setAttribute("role", error ? "alert" : "status");
  const span = document.createElement("span");
  span.textContent = text;
  box.append(span);
  if (undo) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.dataset.testid = "history-undo";
    button.textContent = rows.dataset.undoLabel;
    button.addEventListener("click", async () => {
      const r = await api("POST", rows.dataset.undoUrl, {token: undo});
      if (!r.ok) { show(await refusal(r), {error: true}); return; }
      await refresh(rows.dataset.undone);
    });
    box.append(" ", button);
  }
  return box;
}

function show(text, options) {
  rows.querySelectorAll(":scope > .notice").forEach(n => n.remove());
  rows.prepend(notice(text, options));
  rows.scrollIntoView({block: "start"});
}

// The page the reader was on, read again from the file.
async function refresh(text, options) {
  const state = rows.querySelector("[data-page-state]");
  const query = new URLSearchParams(state ? {session: state.dataset.session, page: state.dataset.page,
                                             q: state.dataset.q} : {});
  await window.htmx.ajax("GET", `${rows.dataset.rowsUrl}?${query}`, {target: "#history-rows", swap: "innerHTML"});
  if (text) show(text, options);
}

function body(form, submitter) {
  const kind = form.dataset.api;
  if (kind === "edit") return {fingerprint: form.dataset.fingerprint, text: form.elements.text.value};
  if (kind === "hide") return {fingerprint: form.dataset.fingerprint, hidden: form.dataset.hidden === "1"};
  if (kind === "swipe") return {turn: Number(form.dataset.turn), alternative: Number(submitter.value)};
  return undefined;
}

async function change(form, submitter) {
  const kind = form.dataset.api;
  const method = {edit: "PUT", hide: "PUT", delete: "DELETE", swipe: "POST"}[kind];
  const address = kind === "delete"
    ? `${form.dataset.url}?${new URLSearchParams({fingerprint: form.dataset.fingerprint})}` : form.dataset.url;
  const r = await api(method, address, body(form, submitter));
  if (!r.ok) { show(await refusal(r), {error: true}); return; }
  const answer = await r.json();
  if (kind === "edit" && answer.changed === false) { await refresh(form.dataset.unchanged); return; }
  const done = kind === "swipe" ? form.dataset.done.replace("%(version)s", answer.version)
    .replace("%(versions)s", answer.versions) : form.dataset.done;
  await refresh(done, {undo: answer.undo_token || null});
}

if (rows) {
  document.addEventListener("submit", (event) => {
    const form = event.target.closest("#history-rows form[data-api]");
    if (!form || event.defaultPrevented) return;  // page.js asked "Are you sure?" and was told no
    event.preventDefault();
    change(form, event.submitter);
  });
}
