// "Rebuild this session's recaps" on the persona & memory page: the REST call the API offers
// (POST …/recaps/rebuild), its stage polled from the memory progress line as summarize's is,
// the seconds counted; once done the page's body is read again, the recaps as rebuilt. Why it
// failed is said in the page's language with the server's own message.
import {api, refusal} from "./rest.js";

const POLL_MS = 700;

async function bodyReload() {
  const r = await fetch(location.href, {credentials: "same-origin"});
  if (!r.ok) return false;
  const page = new DOMParser().parseFromString(await r.text(), "text/html");
  const fresh = page.getElementById("persona-body");
  const body = document.getElementById("persona-body");
  if (!fresh || !body) return false;
  body.replaceChildren(...fresh.childNodes);
  if (window.htmx) window.htmx.process(body);
  return true;
}

async function rebuild(button) {
  const status = document.getElementById("recap-rebuild-status");
  const failed = document.getElementById("recap-rebuild-error");
  const started = Date.now();
  let stage = button.dataset.working;
  const show = () => {
    status.textContent = `${stage} · ${Math.round((Date.now() - started) / 1000)} s`;
  };
  button.disabled = true;
  failed.hidden = true;
  status.hidden = false;
  show();
  const timer = setInterval(async () => {
    try {
      const r = await fetch(button.dataset.progressUrl, {credentials: "same-origin"});
      if (r.ok && r.headers.get("X-Memory-Progress") === "running") stage = await r.text();
    } catch (error) { /* the answer (or its failure) says what happened */ }
    show();
  }, POLL_MS);
  const response = await api("POST", button.dataset.restUrl);
  clearInterval(timer);
  if (!response.ok) {
    const reason = await refusal(response);
    button.disabled = false;
    status.hidden = true;
    failed.textContent = button.dataset.failed.replace("%(reason)s", reason);
    failed.hidden = false;
    return;
  }
  const chunks = String((await response.json().catch(() => ({}))).chunks ?? 0);
  const done = button.dataset.done.replace("%(chunks)s", chunks);
  if (!await bodyReload()) {
    location.reload();
    return;
  }
  const said = document.getElementById("recap-rebuild-status");
  said.textContent = done;
  said.hidden = false;
}

// The body is swapped by the page's other actions (htmx): listen on the document.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-recap-rebuild]");
  if (button && !button.disabled) rebuild(button);
});
