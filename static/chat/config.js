// What the page hands the script: its texts and every URL, each written by
// the template with {% url %} into a data-* attribute of #chat (none is spelled out here).
export const root = document.getElementById("chat");
export const S = root ? JSON.parse(document.getElementById("chat-strings").textContent) : {};
export const fill = (text, value) => text.replace("%(s)s", value);
// A touch keyboard has no Shift+Enter and a finger cannot hover for a tooltip.
export const touch = window.matchMedia("(pointer: coarse)").matches;

// The template reverses API routes with the placeholders SESSION and TRACE (ids are lower
// case, so neither can be part of a real id) and the index 0 as the last path segment.
export function url(name, {session, index, trace} = {}) {
  let address = root.dataset[name];
  if (session !== undefined) address = address.replace("SESSION", encodeURIComponent(session));
  if (trace !== undefined) address = address.replace("TRACE", encodeURIComponent(trace));
  if (index !== undefined) address = address.replace(/\/0$/, `/${Number(index)}`);
  return address;
}
