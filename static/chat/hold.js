// "Hold this beat" beside the current outline point: PUT /api/v1/instances/{id}/plot_hold, then the
// outline is read again, so what it shows is what the instance's file now says. The server tells
// the chat's other open pages (a `plot_changed` event), which read their outline too.
import {api, refusal} from "../rest.js";
import {toast} from "./actions.js";
import {eventsOn} from "./socket.js";

// Whether the outline shown is not the one `director` describes (an answer or an event): this
// page's own change comes back as an event too, and reading the outline twice is a wasted read.
function outlineStale(director) {
  const outline = document.getElementById("outline");
  return !outline || outline.dataset.held !== String(director.held)
    || outline.dataset.plot !== `${director.current_index}:${director.current_status}`;
}

function outlineRead(director) {
  if (outlineStale(director) && window.htmx) window.htmx.trigger(document.body, "plot-changed");
}

export async function plotHold(control) {
  if (control.disabled) return;
  control.disabled = true;
  const held = control.getAttribute("aria-pressed") !== "true";
  const r = await api("PUT", control.dataset.holdUrl, {held});
  control.disabled = false;
  if (!r.ok) { toast(await refusal(r)); return; }
  outlineRead(await r.json());
}

export function holdWire() {
  eventsOn("plot_changed", outlineRead);
}
