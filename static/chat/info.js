// A message's Info (its "Info" button or menu item): when it was written, who wrote it, its
// number and length, and for a reply the model that wrote it, the prompt's and the reply's
// tokens and how long it took (GET /api/v1/traces/{id}?fields=info), as SillyTavern's message
// info. A dialog: Escape or Close shuts it and the focus goes back to the message.
import {S, url} from "./config.js";
import {api, refusal} from "../rest.js";
import {renderAll} from "./render.js";

const language = document.documentElement.lang || undefined;
let closed = null;  // puts the focus back where the Info was asked from
let asked = 0;  // the last Info asked for: a slow answer for an earlier one is not shown in it

function dialogBox() { return document.getElementById("message-info"); }

function said(text, value) { return text.replace("%(s)s", value); }

function number(value, digits = 0) {
  return Number(value).toLocaleString(language, {maximumFractionDigits: digits, minimumFractionDigits: digits});
}

function when(stamp) {
  const date = new Date(stamp);
  return isNaN(date) ? "" : date.toLocaleString(language, {dateStyle: "medium", timeStyle: "medium"});
}

function rowsShow(list, rows) {
  list.replaceChildren();
  for (const [term, value, testid] of rows) {
    if (value === "" || value === null || value === undefined) continue;
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = value;
    dd.dataset.testid = testid;
    list.append(dt, dd);
  }
}

// What the page itself knows of the message.
function pageRows(article) {
  renderAll(article);  // a line of a long read may not be drawn yet: its text as written is kept then
  const raw = article.querySelector(".text")?.dataset.raw || "";
  const stamp = article.querySelector(".who time")?.getAttribute("datetime");
  return [
    [S.infoFrom, article.querySelector(".who strong")?.textContent.trim(), "info-from"],
    [S.infoWritten, stamp ? when(stamp) : "", "info-written"],
    [S.infoTurn, article.dataset.turn, "info-turn"],
    [S.infoLength, said(S.infoCharacters, number([...raw].length)), "info-length"],
  ];
}

function traceRows(info) {
  // 0.04 s, not "0.0 s", for a fast first word; tenths are enough above a second.
  const seconds = (ms) => (ms === null || ms === undefined ? "" : said(S.infoSeconds, number(ms / 1000, ms < 1000 ? 2 : 1)));
  const speed = info.reply_tokens && info.llm_ms ? said(S.infoSpeed, number(info.reply_tokens / (info.llm_ms / 1000), 1)) : "";
  return [
    // the provider alone when it names no model (the offline demo)
    [S.infoModel, info.model ? [info.model, info.provider && `(${info.provider})`].filter(Boolean).join(" ") : info.provider, "info-model"],
    [S.infoPromptTokens, info.prompt_tokens == null ? "" : said(S.infoTokens, number(info.prompt_tokens)), "info-prompt-tokens"],
    [S.infoReplyTokens, info.reply_tokens == null ? "" : said(S.infoTokens, number(info.reply_tokens)), "info-reply-tokens"],
    [S.infoFirstToken, seconds(info.first_token_ms), "info-first-token"],
    [S.infoTook, seconds(info.total_ms), "info-took"],
    [S.infoSpeedLabel, speed, "info-speed"],
  ];
}

export async function infoShow(article, whenClosed) {
  const ask = ++asked;
  const box = dialogBox();
  closed = whenClosed;
  box.querySelector("h3").textContent = said(S.infoTitle, article.dataset.index);
  const list = box.querySelector("dl");
  const note = box.querySelector("[data-info-note]");
  const rows = pageRows(article);
  rowsShow(list, rows);
  const trace = article.querySelector("footer.actions a[data-trace]")?.dataset.trace;
  note.textContent = trace ? S.infoReading : S.infoNoModel;
  if (!box.open) box.showModal();
  if (!trace) return;
  const r = await api("GET", `${url("traceUrl", {trace})}?fields=info`);
  const text = r.ok ? "" : await refusal(r);
  const info = r.ok ? await r.json() : null;
  if (ask !== asked) return;
  if (!info) { note.textContent = text; return; }
  rowsShow(list, [...rows, ...traceRows(info)]);
  note.textContent = info.unfinished ? S.infoUnfinished : "";
}

export function infoWire() {
  const box = dialogBox();
  if (!box) return;
  box.addEventListener("close", () => {
    const then = closed;
    closed = null;
    then?.();
  });
}
