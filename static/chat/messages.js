// The list of messages: the newest page from the server, older pages on scroll, and the
// reader's place kept across reloads. The session file is the truth: after a turn or a change
// the list is read again from the server.
import {S, root, url} from "./config.js";
import {adopt, adoptSoon, fragment, renderText} from "./render.js";
import {drawer} from "./drawer.js";

let loadingOlder = false;
const JUMP_PAGE_MAX = 1000;  // as the server's (chat/pages/chat.py)

export function messagesBox() { return document.getElementById("messages"); }
export function currentSession() { return messagesBox().dataset.session || root.dataset.session; }

export function scrollToNewest() {
  const box = messagesBox();
  box.scrollTop = box.scrollHeight;
}

export function nearNewest() {
  const box = messagesBox();
  return box.scrollHeight - box.scrollTop - box.clientHeight < 80;
}

export function lastLine() { return [...messagesBox().querySelectorAll(".msg[data-role]")].pop(); }

// A picture as the server draws one (chat/_avatar.html): the image, or the name's initial in
// the colour the server picked for that name (`letter`, a letter-cN class), so a bubble has
// the colour of the same speaker's finished messages from its first token.
function avatarMake(name, image, letter) {
  if (image) {
    const img = document.createElement("img");
    img.className = "avatar";
    img.src = image;
    img.alt = "";
    img.width = img.height = 36;
    return img;
  }
  const initials = document.createElement("div");
  initials.className = "avatar initials";
  if (/^letter-c\d+$/.test(letter || "")) initials.classList.add(letter);
  initials.setAttribute("aria-hidden", "true");
  // The first character that shows: a leading U+202E or space left the circle empty.
  const shown = (name || "").match(/[^\p{C}\p{Z}]/u);
  initials.textContent = (shown ? shown[0] : "…").toUpperCase();
  return initials;
}

// A bubble written here before the file holds it (the player's line, a reply as it streams).
export function addMessage(role, raw, label, image, letter) {
  const article = document.createElement("article");
  article.className = "msg " + role + " pending";
  article.dataset.testid = "message";
  article.dataset.role = role;
  const bubble = document.createElement("div");
  bubble.className = "bubble";
  const who = document.createElement("header");
  who.className = "who";
  const name = document.createElement("strong");
  const isolated = document.createElement("bdi");  // a name's U+202E reverses only itself
  isolated.textContent = label;
  name.append(isolated);
  who.append(name);
  const body = document.createElement("div");
  body.className = "text md";
  bubble.append(who, body);
  article.append(avatarMake(label, image, letter), bubble);
  const follow = nearNewest();
  messagesBox().append(article);
  renderText(body, raw);
  if (follow) scrollToNewest();
  return body;
}

// The streaming bubble named after who speaks (`speaker`, `name`, `avatar` of the reply's
// first event); the name as text, never markup.
// A group's bubble before the server has picked who answers: "Choosing who answers…" with
// a neutral "…" in place of a picture, until speakerShow names it.
export function choosingShow(body) {
  const article = body.closest(".msg");
  if (!article) return;
  article.dataset.choosing = "";
  const initials = article.querySelector(".avatar.initials");
  if (initials) initials.textContent = "…";
}

export function speakerShow(body, who) {
  const article = body.closest(".msg");
  if (!article || !who.name) return;
  delete article.dataset.choosing;
  article.querySelector(".who strong bdi").textContent = who.name;
  if (who.speaker) article.dataset.speaker = who.speaker;
  article.querySelector(".avatar").replaceWith(avatarMake(who.name, who.avatar, who.letter));
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
  while (!find() && await loadOlder(place.index)) { /* read back to the reader's line */ }
  const line = find();
  if (!line) { scrollToNewest(); return; }
  const box = messagesBox();
  const offset = line.getBoundingClientRect().top - box.getBoundingClientRect().top;
  box.scrollTop += offset - place.offset;
}

// The reader's place kept across the browser's Back (from the prompt inspector, History, a
// card) and a reload: a player who scrolled back to open an older reply's prompt comes back to
// that reply, not to the newest line; so does a page's own "back to the chat" link, which ends in
// #reading. A chat opened any other way starts at the newest line.
const placeKey = `personalab-place-${root.dataset.account}-${root.dataset.instance}`;
export function placeKeep() {
  const place = readingPlace();
  try {
    if (place) sessionStorage.setItem(placeKey, JSON.stringify(place));
    else sessionStorage.removeItem(placeKey);
  } catch (e) { /* storage off: the chat opens at the newest line */ }
}
export async function placeRestore() {
  let place = null;
  try {
    place = JSON.parse(sessionStorage.getItem(placeKey) || "null");
    sessionStorage.removeItem(placeKey);
  } catch (e) { place = null; }
  const arrival = performance.getEntriesByType("navigation")[0]?.type;
  const linked = location.hash === "#reading";
  if (linked) history.replaceState(history.state, "", location.pathname + location.search);
  const returning = arrival === "back_forward" || arrival === "reload" || linked;
  if (place && returning && place.session === currentSession()) await returnTo(place);
  else scrollToNewest();
}

// While the list is read again it is marked busy (aria-busy): assistive technology waits for
// the new list, and so can anything about to act on a message the read will replace.
let readsGoing = 0;
export async function reloadFromFile() {
  readsGoing += 1;
  messagesBox().setAttribute("aria-busy", "true");
  try {
    const [messages, outline] = await Promise.all([
      fetch(url("messagesUrl")).then(r => r.text()),
      fetch(url("outlineUrl")).then(r => r.text()),
    ]);
    const place = readingPlace();
    const fresh = fragment(messages).firstElementChild;
    fresh.setAttribute("aria-busy", "true");
    messagesBox().replaceWith(fresh);
    document.getElementById("outline").outerHTML = outline;
    adopt(fresh);
    sessionShow(currentSession());
    storyStateShow(fresh.dataset);
    watchScroll();
    if (place && place.session === currentSession()) await returnTo(place);
    else scrollToNewest();
  } finally {
    readsGoing -= 1;
    if (!readsGoing) messagesBox().removeAttribute("aria-busy");
  }
}

// One message read again from the file after a change to it (edit, hide, another version).
export async function messageRefresh(article) {
  const query = new URLSearchParams({session: currentSession(), index: article.dataset.index});
  const r = await fetch(`${url("lineUrl")}?${query}`);
  if (!r.ok) { await reloadFromFile(); return; }
  const fresh = fragment(await r.text()).firstElementChild;
  article.replaceWith(fresh);
  adopt(fresh);
}

// What a turn or a member change moves, read with the messages: when the next recap is due
// and the chat's title (a group is named after its members).
function storyStateShow({recapDue, title}) {
  const recap = document.getElementById("recap-due");
  if (recap && recapDue !== undefined) recap.textContent = recapDue;
  if (title) titleShow(title);
}

export function titleShow(title) {
  const heading = document.getElementById("chat-title");
  if (heading) heading.textContent = title;
  document.title = `${title} · PersonaLab`;
}

// A session as players name it, "conversation 3" for sess_003 (chat/templatetags/sessions.py).
export function sessionLabel(sessionId, {short = false} = {}) {
  const number = /^sess_(\d+)$/.exec(sessionId);
  const words = short ? S.conversationShort : S.conversation;
  return number ? words.replace("%(number)s", Number(number[1])) : sessionId;
}

// A branch or a summarize can move the chat to a new session: the title and the export
// links follow it, so an export never silently hands back the old session.
export function sessionShow(sessionId) {
  const label = sessionLabel(sessionId);
  document.querySelectorAll("[data-current-session]").forEach(el => { el.textContent = label; });
  const short = sessionLabel(sessionId, {short: true});
  document.querySelectorAll("[data-current-session-short]").forEach(el => {
    el.textContent = short;
    el.title = label;
  });
  const exportUrl = url("exportUrl", {session: sessionId});
  document.querySelectorAll("a[data-export]").forEach(a => {
    a.href = `${exportUrl}?${new URLSearchParams({format: a.dataset.export})}`;
  });
  document.querySelectorAll("a[data-export-member]").forEach(a => {
    a.href = `${exportUrl}?${new URLSearchParams({format: "jsonl", character: a.dataset.exportMember})}`;
  });
}

// A long read's messages are laid out and painted only near the view (`.msg.far`,
// content-visibility in app.css), and drawn first where the reader lands: the line reached and
// the screenful after it, and the lines just above where the reader was.
const LONG_READ = 40;  // more than a page the reader's scroll reads
const DRAWN_FIRST = 30;

function longReadMark(nodes) {
  for (const node of nodes) if (node.matches(".msg")) node.classList.add("far");
}

// The lines nearest the one reached first (or, on no jump, the newest of the read: just above
// where the reader was).
function drawOrder(nodes, reach) {
  if (reach === undefined) return [...nodes].reverse();
  const near = (node) => Math.abs(Number(node.dataset.index) - Number(reach));
  const far = (node) => (node.dataset.index === undefined ? Infinity : near(node));
  return [...nodes].sort((a, b) => far(a) - far(b));
}

// `reach`: an earlier line to be read in the same page (a jump to it), up to the server's
// 1,000 messages; else a page of 40.
export async function loadOlder(reach) {
  const marker = messagesBox().querySelector(".older");
  if (!marker || loadingOlder) return false;
  loadingOlder = true;
  try {
    const asked = {before: marker.dataset.before};
    const span = Number(marker.dataset.before) - Number(reach);
    if (span > 0) asked.shown = String(Math.min(span, JUMP_PAGE_MAX));
    const r = await fetch(`${url("messagesUrl")}?${new URLSearchParams(asked)}`);
    if (!r.ok) return false;
    const box = messagesBox();
    // Keep the line the reader was at in place. Chromium's scroll anchoring already moves
    // the view by the inserted height and Safari's does not, so measure instead of adding it.
    const older = fragment(await r.text());
    const anchor = marker.nextElementSibling;
    const was = anchor ? anchor.getBoundingClientRect().top : 0;
    const nodes = [...older.children];
    const long = nodes.filter((node) => node.matches(".msg")).length > LONG_READ;
    if (long) longReadMark(nodes);
    marker.replaceWith(older);
    if (long) adoptSoon(drawOrder(nodes, reach), DRAWN_FIRST);
    else for (const node of nodes) adopt(node);
    if (anchor) box.scrollTop += anchor.getBoundingClientRect().top - was;
    return true;
  } finally {
    loadingOlder = false;
  }
}

// "Go to message #N" (the drawer's reading card): the older messages down to it are read (in
// one page of up to 1,000: 40 at a time took 9 s to reach #5 of 1,236 on a phone), then it is
// brought into view and takes the focus (its menu is one Enter away).
export async function messageReveal(index) {
  const find = () => messagesBox().querySelector(`.msg[data-index="${Number(index)}"]`);
  for (let tries = 0; !find() && messagesBox().querySelector(".older") && tries < 500; tries++) {
    // false while a page the reader's scroll asked for is still coming: wait for it
    if (!await loadOlder(index)) await new Promise((done) => setTimeout(done, 100));
  }
  const line = find();
  if (!line) return false;
  // The list's own scroll only: scrollIntoView also scrolls the page, which is never to move.
  const box = messagesBox();
  box.scrollTop += line.getBoundingClientRect().top - box.getBoundingClientRect().top;
  line.focus({preventScroll: true});
  return true;
}

export function jumpWire() {
  const form = document.getElementById("message-jump");
  if (!form) return;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const said = document.querySelector("[data-jump-said]");
    said.textContent = "";
    const found = await messageReveal(form.elements.index.value);
    if (!found) said.textContent = S.jumpMissing.replace("%(s)s", form.elements.index.value);
    else drawer(false);  // on a phone the drawer covered the message
  });
}

// A reader who scrolled back (or went to an early message) gets a "↓ Newest" button over the
// composer: on a phone the way back down a long evening was a long swipe.
function newestButtonShow() {
  const button = document.getElementById("to-newest");
  if (button) button.hidden = nearNewest();
}

export function watchScroll() {
  messagesBox().addEventListener("scroll", () => {
    if (messagesBox().scrollTop < 300) loadOlder();
    newestButtonShow();
  }, {passive: true});
  newestButtonShow();
}

export function newestWire() {
  document.getElementById("to-newest")?.addEventListener("click", () => {
    scrollToNewest();
    newestButtonShow();
    // the button is gone: the keyboard's focus goes to the newest message, not the page's top
    lastLine()?.closest(".msg[data-index]")?.focus({preventScroll: true});
  });
}
