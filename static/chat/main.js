// The chat page. A reply streams over the WebSocket (socket.js); the session file stays the
// truth, so after every turn or change the messages are read again from the server
// (messages.js). Every control works through event delegation, so messages added later (a new
// turn, older pages, another version) need no re-wiring.
import {root} from "./config.js";
import {renderAll} from "./render.js";
import {jumpWire, loadOlder, newestWire, placeKeep, placeRestore, titleShow, watchScroll} from "./messages.js";
import {budgetShow, latestTraceId, warningsWire} from "./budget.js";
import {connect, draftRestore} from "./socket.js";
import {asideWire} from "./aside.js";
import {impersonateWire} from "./impersonate.js";
import {composerWire} from "./composer.js";
import {gestureWire, messageAction} from "./actions.js";
import {drawer, drawerWire} from "./drawer.js";
import {holdWire, plotHold} from "./hold.js";
import {indexProgress, lockFollow, memoryWire} from "./memory.js";
import {roomWire} from "./room.js";
import {menuWire} from "./menu.js";
import {infoWire} from "./info.js";
import {exportWire} from "./export.js";

root.addEventListener("click", (e) => {
  const toggle = e.target.closest("[data-testid=drawer-toggle]");
  if (toggle) { drawer(!root.classList.contains("drawer-open"), {focus: true}); return; }
  const control = e.target.closest("[data-action]");
  if (!control) return;
  const action = control.dataset.action;
  if (action === "drawer-close") drawer(false, {focus: true});
  else if (action === "older") loadOlder();
  else if (action === "plot-hold") { e.preventDefault(); plotHold(control); }  // not the no-script form
  else messageAction(action, control);
});

warningsWire();
asideWire();
impersonateWire();
composerWire();
drawerWire();
memoryWire();
gestureWire();
roomWire();
menuWire();
infoWire();
exportWire();
holdWire();
jumpWire();
newestWire();
if (window.htmx) window.htmx.onLoad((el) => renderAll(el));
// A member change sends the chat's title again (out of band): the tab's title follows it.
document.body.addEventListener("htmx:afterSettle", () => {
  const heading = document.getElementById("chat-title");
  if (heading) titleShow(heading.textContent);
});
// A member's buttons leave with it: the focus goes to the picker it can be added back from,
// not to the top of the page.
document.body.addEventListener("htmx:afterSettle", (event) => {
  if (event.detail.target?.id !== "members-card" || document.activeElement !== document.body) return;
  document.getElementById("member-add")?.focus();
});
draftRestore();
renderAll(document);
watchScroll();
connect();
placeRestore();
addEventListener("pagehide", placeKeep);
budgetShow(latestTraceId());
indexProgress();
lockFollow();
