// "Hold this beat" beside the current outline point: PUT /api/v1/instances/{id}/plot_hold, then the
// outline is read again, so what it shows is what the instance's file now says.
import {api, refusal} from "../rest.js";
import {toast} from "./actions.js";

export async function plotHold(control) {
  if (control.disabled) return;
  control.disabled = true;
  const held = control.getAttribute("aria-pressed") !== "true";
  const r = await api("PUT", control.dataset.holdUrl, {held});
  control.disabled = false;
  if (!r.ok) { toast(await refusal(r)); return; }
  if (window.htmx) window.htmx.trigger(document.body, "plot-changed");
}
