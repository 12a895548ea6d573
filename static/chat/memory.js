// Summarize / Update memory show their stage and elapsed time; an imported chat's embedding
// says how far it is while it is not done.
import {S, fill, url} from "./config.js";
import {reloadFromFile} from "./messages.js";

export function memoryWire() {
  const card = document.getElementById("memory-card");
  card.addEventListener("htmx:beforeRequest", (e) => {
    if (!e.target.dataset.memoryAction) return;
    const started = Date.now();
    const stage = document.getElementById("memory-stage");
    const elapsed = document.getElementById("memory-elapsed");
    stage.textContent = S.starting;
    document.getElementById("memory-result").replaceChildren();
    const timer = setInterval(async () => {
      elapsed.textContent = `${Math.round((Date.now() - started) / 1000)} s`;
      const r = await fetch(card.dataset.progressUrl);
      if (r.ok) stage.textContent = await r.text();
    }, 500);
    e.target.addEventListener("htmx:afterRequest", () => {
      clearInterval(timer);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const took = document.createElement("small");
      took.className = "muted";
      took.textContent = ` (${fill(S.took, seconds)})`;
      document.getElementById("memory-result").append(took);
      reloadFromFile();
    }, {once: true});
  });
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
  line.textContent = behind ? " · " + line.dataset.text
    .replace("%(embedded)s", index.embedded).replace("%(lines)s", index.lines) : "";
  if (behind) setTimeout(indexProgress, 5000);
}
