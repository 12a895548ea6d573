// Turning text into what the reader sees: Markdown cleaned by DOMPurify, [PROGRESS:…] badges,
// pictures as links, local times; and the small DOM helpers the other modules share.
import {markdownFixedShown, streamingBalanced} from "./markdown_fix.js";

const PROGRESS = /\[PROGRESS:([^:\]\n]{1,60}):([^\]\n]{1,60})\]/g;

export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

// What a reply or a card may keep: text, formatting and links. Never a data-* attribute
// (htmx obeys data-hx-*, and our own controls are found by data-*), a style, an event handler,
// or a link to anything but a web page or a mail address (nor one that saves what it names
// under a name of the text's choosing); an id or name is prefixed so it
// can never stand in for one of the page's own elements.
// Nothing in it loads anything either: media, <picture>'s sources and SVG (its <image> and
// filters fetch pictures) go, and so do the attributes that fetch (a table's background).
// A <dialog open> goes too (its text stays): it drew a box over the page, and the drawer took
// it for a dialog of the page's own and would no longer close on Escape.
const PURIFY = {
  FORBID_TAGS: ["style", "form", "input", "textarea", "button", "img", "iframe", "select",
                "video", "audio", "source", "track", "picture", "svg", "dialog"],
  FORBID_ATTR: ["style", "background", "poster", "srcset", "ping", "download"],
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.\-]+(?:[^a-z+.\-:]|$))/i,
  SANITIZE_NAMED_PROPS: true,
};

// A class is the page's own styling: the text keeps only those it is drawn with (a progress
// badge, a code block's language). The page's others would lift it out of its bubble:
// `flash floating` from a reply or a shared card is a notice over the top bar, its link a
// fake "log in again".
const KEPT_CLASS = /^(?:progress-badge|language-[\w-]{1,40})$/;
function classesKept(box) {
  for (const el of box.querySelectorAll("[class]")) {
    const kept = [...el.classList].filter((name) => KEPT_CLASS.test(name));
    if (kept.length) el.className = kept.join(" ");
    else el.removeAttribute("class");
  }
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

// A status the outline knows is named in the page's language (templates/chat/_plot_words.html).
const PLOT_WORD_KEYS = {completed: "completed", in_progress: "inProgress", pending: "pending"};
function statusWord(status) {
  const words = document.getElementById("plot-words");
  const key = PLOT_WORD_KEYS[status.trim().toLowerCase()];
  return (words && key && words.dataset[key]) || status;
}

// A reply's marker the director did not take because the beat was held (the server says which
// point: the message's data-held-point, from its trace) is drawn as not taken, in words too.
function heldMark(box, point) {
  const words = document.getElementById("plot-words");
  for (const badge of box.querySelectorAll(".progress-badge")) {
    if (!badge.textContent.startsWith(`◆ ${point} ·`)) continue;
    badge.classList.add("progress-held");
    const said = (words && words.dataset.held) || "held: not taken";
    badge.title = `${(words && words.dataset.heldTitle) || said} ${badge.title}`;
    const anchor = box.ownerDocument.createElement("span");
    anchor.setAttribute("aria-hidden", "true");
    anchor.textContent = "⚓ ";
    const hidden = box.ownerDocument.createElement("span");
    hidden.className = "visually-hidden";
    hidden.textContent = ` (${said})`;
    badge.prepend(anchor);
    badge.append(hidden);
  }
}

let cleaning = null;
function cleaningDocument() {
  cleaning ??= document.implementation.createHTMLDocument("");
  return cleaning;
}

function markdownHtml(raw, heldPoint) {
  // The marker stays verbatim in the file; on screen it becomes a small badge.
  const withBadges = markdownFixedShown(raw).replace(PROGRESS, (all, point, status) =>
    `<span class="progress-badge" title="${escapeHtml(all)}">◆ ${escapeHtml(point)} · ${escapeHtml(statusWord(status))}</span>`);
  if (!window.marked || !window.DOMPurify) return escapeHtml(raw).replace(/\n/g, "<br>");
  // Parsed and cleaned inside a document of its own, which has no window: nothing in it loads
  // or runs, and only the cleaned markup reaches the page. Chromium still logs the policy's
  // refusal of an event handler or style attribute the text carried, as it parses it here
  // (tests/e2e/test_hostile_markup.py): the policy's second line of defence, nothing ran.
  // Not the <template>s' document: each clean leaves a node iterator on its document until
  // the next garbage collection, and every node a page of older lines (parsed in a template)
  // takes out of that document walked them all: 1,000 lines put in after 2,000 drawn ones
  // held the page for seconds.
  const box = cleaningDocument().createElement("div");
  box.innerHTML = window.marked.parse(withBadges, {breaks: true, gfm: true});
  imagesAsLinks(box);
  window.DOMPurify.sanitize(box, {...PURIFY, IN_PLACE: true});
  classesKept(box);
  if (heldPoint) heldMark(box, heldPoint);
  return box.innerHTML;
}

// htmx never looks inside rendered text (hx-disable covers every descendant), whatever
// markup got through.
export function renderText(el, raw, {streaming = false} = {}) {
  el.setAttribute("hx-disable", "");
  el.dataset.raw = raw;
  const message = el.classList.contains("text") && el.closest("[data-held-point]");
  el.innerHTML = markdownHtml(streaming ? streamingBalanced(raw) : raw,
                              message && message.dataset.heldPoint);
  el.dataset.rendered = "1";
}

export function renderAll(scope) {
  for (const el of (scope || document).querySelectorAll(".md:not([data-rendered])")) {
    renderText(el, el.textContent.replace(/^\n+|\s+$/g, ""));
  }
  if (window.localTimes) window.localTimes(scope || document);
}

export function fragment(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  return template.content;
}

// Markup from our own server (a message, a page of older ones) made live on the page.
export function adopt(scope) {
  if (window.htmx) window.htmx.process(scope);
  renderAll(scope);
}

// A long read of older messages (a jump or a reload on an early line, up to 1,000) is made
// live at once, but only its first `now` nodes in `ordered` (the lines the reader is shown
// first) are drawn in this task; the others' Markdown is drawn in that order a slice of ~10 ms
// at a time, between the browser's frames: drawn all at once it held a phone's page for
// seconds. Until then a line shows its text as written (find-in-page and a screen reader find
// it all the same).
const drawLater = [];
let drawing = false;

// A line the reader scrolls to before its turn is drawn as it comes near the view (the
// browser says so of a content-visibility line; where it does not, the slices reach it).
function drawWhenNear(e) {
  if (!e.skipped) drawn(e.currentTarget);
}

// htmx's look through a line goes with its drawing too: done for 1,000 lines in one task it
// was most of the time a jump held the page (a message's own buttons are the page script's,
// not htmx's, so nothing waits for it).
const drawnNodes = new WeakSet();

function drawn(node) {
  if (drawnNodes.has(node)) return;
  drawnNodes.add(node);
  if (window.htmx) window.htmx.process(node);
  renderAll(node);
}

export function adoptSoon(ordered, now) {
  ordered.forEach((node, place) => {
    if (place < now) drawn(node);
    else node.addEventListener("contentvisibilityautostatechange", drawWhenNear, {passive: true});
  });
  drawLater.unshift(...ordered.slice(now).reverse());
  if (!drawing && drawLater.length) { drawing = true; setTimeout(drawSlice, 0); }
}

function drawSlice() {
  const end = performance.now() + 10;
  while (drawLater.length && performance.now() < end) {
    const node = drawLater.pop();
    if (node.isConnected) drawn(node);
  }
  if (drawLater.length) setTimeout(drawSlice, 0);
  else drawing = false;
}
