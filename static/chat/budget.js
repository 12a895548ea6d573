// Under the input: the warnings a turn raised and the size of the last prompt by section.
import {S, url} from "./config.js";

const warnings = new Map();

export function warningAdd(event) {
  warnings.set(event.category, event);
  renderWarnings();
}

function renderWarnings() {
  const area = document.getElementById("warnings");
  const list = document.getElementById("warning-list");
  area.hidden = warnings.size === 0;
  document.getElementById("warning-count").textContent = warnings.size;
  list.replaceChildren();
  for (const w of warnings.values()) {
    const item = document.createElement("li");
    item.textContent = "⚠️ " + w.message;  // its numbers are in its words (and its details)
    item.title = S.warningDetails;
    item.addEventListener("dblclick", () => showWarning(w));
    list.append(item);
  }
}

function showWarning(w) {
  const detail = document.getElementById("warning-detail");
  detail.replaceChildren();
  const number = (value) => (typeof value === "number" ? count(value) : value);
  for (const [label, value] of [[S.warningType, w.message], [S.warningCategory, w.category],
                                [S.warningValue, number(w.current_value)],
                                [S.warningThreshold, number(w.threshold)],
                                [S.warningSuggestion, w.suggestion]]) {
    if (value == null || value === "") continue;
    const dt = document.createElement("dt"); dt.textContent = label;
    const dd = document.createElement("dd"); dd.textContent = value;
    detail.append(dt, dd);
  }
  document.getElementById("warning-dialog").showModal();
}

export function warningsWire() {
  document.getElementById("warning-badge").addEventListener("click", () => {
    const list = document.getElementById("warning-list");
    list.hidden = !list.hidden;
  });
}

// A section by the name the prompt inspector gives it, in the page's language.
function sectionName(name) {
  if (Object.hasOwn(S.sectionNames, name)) return S.sectionNames[name];
  if (name.startsWith("block:lore:")) return S.worldInfoEntry;
  if (name.startsWith("block:")) return S.promptBlock.replace("%(name)s", name.slice("block:".length));
  return name;
}

// "100,000" (or as the page's language groups digits), not "100000".
const count = (n) => Number(n).toLocaleString(document.documentElement.lang || undefined);

export async function budgetShow(traceId) {
  if (!traceId) { budgetUnmeasured(); return; }
  // The light form: the bar needs the sections' tokens, not the messages sent.
  const response = await fetch(`${url("traceUrl", {trace: traceId})}?fields=sections`);
  if (!response.ok) return;
  const trace = await response.json();
  // The newest reply shown was written in another conversation (the lines a summarize or a
  // branch carried over): its prompt is not this one's, which is measured at its next turn.
  const shown = document.getElementById("messages");
  if (shown && shown.dataset.session && trace.session_id !== shown.dataset.session) {
    budgetUnmeasured();
    return;
  }
  const bar = document.getElementById("budget");
  const limit = trace.prompt_limit || trace.max_total_tokens || 1;  // the window's, if smaller
  bar.replaceChildren();
  for (const section of trace.sections || []) {
    if (!section.tokens) continue;
    const part = document.createElement("span");
    // The legend's three colours: the conversation (a middle section too), the rest of the
    // middle (director, memory, notes at a depth), and the head.
    part.className = "seg seg-" + (section.name === "conversation" ? "history"
                                   : section.region === "head" ? "head" : "middle");
    part.style.width = Math.max(0.3, 100 * section.tokens / limit) + "%";
    part.dataset.section = section.name;
    part.title = S.sectionTokens.replace("%(name)s", sectionName(section.name))
      .replace("%(tokens)s", count(section.tokens)) + ` (${(100 * section.tokens / limit).toFixed(1)}%)`;
    bar.append(part);
  }
  const label = document.createElement("small");
  label.textContent = " " + S.promptTokens.replace("%(total)s", count(trace.total_tokens))
    .replace("%(limit)s", count(limit));
  bar.append(label);
  document.getElementById("budget-wrap").hidden = false;
  // Folded into the chat header while the player types on a phone (room.js).
  const mini = document.getElementById("budget-mini");
  const share = 100 * trace.total_tokens / limit;
  const percent = share < 1 ? "<1%" : `${Math.round(share)}%`;
  mini.querySelector(".budget-mini-share").textContent = percent;
  mini.title = S.promptShare.replace("%(share)s", percent)
    .replace("%(tokens)s", label.textContent.trim());
  mini.setAttribute("aria-label", mini.title);
  mini.hidden = false;
}

// A bar already shown says its figure is gone rather than keep the previous conversation's.
function budgetUnmeasured() {
  const wrap = document.getElementById("budget-wrap");
  if (!wrap || wrap.hidden) return;
  const bar = document.getElementById("budget");
  const label = document.createElement("small");
  label.dataset.testid = "budget-next-turn";
  label.textContent = S.promptNextTurn;
  bar.replaceChildren(label);
  document.getElementById("budget-mini").hidden = true;
}

export function latestTraceId() {
  const link = [...document.querySelectorAll("#messages .msg.assistant a[data-trace]")].pop();
  return link ? link.dataset.trace : null;
}
