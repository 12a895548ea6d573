// An export of a long chat (50,000 messages take about 10 s) says it is under way: the
// browser showed nothing until the file came, and a second press asked for another. The link
// is read with fetch while a note (role=status) ticks the seconds, the file is handed to the
// browser as a download, and the note says what came, or why nothing did.
import {S, fill} from "./config.js";
import {api, refusal} from "../rest.js";

const EXPORT_LINKS = "a[data-export], a[data-export-member]";
let running = false;

function fileName(response) {
  const header = response.headers.get("Content-Disposition") || "";
  const encoded = header.match(/filename\*=UTF-8''([^;]+)/i);
  if (encoded) return decodeURIComponent(encoded[1]);
  const plain = header.match(/filename="([^"]*)"/i);
  return plain ? plain[1] : "chat";
}

const sizeWords = (bytes) => bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MB`
  : `${Math.max(1, Math.round(bytes / 1024))} KB`;

function linksHeld(held) {
  running = held;
  for (const link of document.querySelectorAll(EXPORT_LINKS)) {
    if (held) link.setAttribute("aria-disabled", "true"); else link.removeAttribute("aria-disabled");
  }
}

function downloadOffer(blob, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

async function exportRun(address) {
  const note = document.getElementById("export-status");
  note.classList.add("busy-note");
  const started = Date.now();
  const show = () => {
    const seconds = Math.round((Date.now() - started) / 1000);
    note.textContent = seconds < 2 ? S.exporting : `${S.exporting} ${fill(S.exportSeconds, seconds)}`;
  };
  show();
  const timer = setInterval(show, 1000);
  linksHeld(true);
  try {
    const response = await api("GET", address);
    const said = response.ok ? null : await refusal(response);
    const blob = response.ok ? await response.blob() : null;
    clearInterval(timer);
    note.classList.remove("busy-note");
    if (said !== null) { note.textContent = `${S.error} ${said}`; return; }
    const name = fileName(response);
    downloadOffer(blob, name);
    note.textContent = fill(S.exported, `${name} (${sizeWords(blob.size)})`);
  } catch (error) {  // the connection broke while the file came
    clearInterval(timer);
    note.classList.remove("busy-note");
    note.textContent = S.exportBroken;
  } finally {
    linksHeld(false);
  }
}

export function exportWire() {
  document.addEventListener("click", (event) => {
    const link = event.target.closest(EXPORT_LINKS);
    if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey
        || event.altKey) return;
    event.preventDefault();
    if (!running) exportRun(link.href);
  });
}
