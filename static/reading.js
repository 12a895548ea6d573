// Reading settings (text size, message style, chat width, times, message numbers, colours,
// font, accent colour): a change
// in a reading form (templates/_reading.html: the settings page, the chat's drawer) is saved
// through /api/v1/reading and applied at once to <body>'s data-reading-* attributes, which
// static/app.css reads; no reload, and the conversation keeps its place.
// The browser's time zone is kept with them when it is not the one kept: {{time}}, {{date}}
// and the other clock macros of the account's chats (prompt and page) read it.
import {api, refusal} from "./rest.js";

const page = document.body;
const forms = document.querySelectorAll("[data-reading-form]");

function settingsApply(settings) {
  for (const [name, value] of Object.entries(settings)) {
    const shown = typeof value === "boolean" ? (value ? "on" : "off") : value;
    page.setAttribute(`data-reading-${name.replace(/_/g, "-")}`, shown);
    for (const form of forms) {  // another copy of the form on the page says the same
      const field = form.elements[name];
      if (!field) continue;
      if (field.type === "checkbox") field.checked = value;
      else if (field.type !== "color") field.value = value;  // static/accent.js shows the colour
    }
  }
}

// One change is saved at a time, in the order made: two sent at once could reach the server (or
// two of its workers) in the other order, and the older choice would be the one kept.
let saving = Promise.resolve();

function settingChange(form, field, value) {
  saving = saving.then(() => settingSave(form, field, value)).catch(() => {});
}

async function settingSave(form, field, value) {
  const said = form.querySelector("[data-reading-said]");
  const reader = document.getElementById("messages");
  const atEnd = reader && reader.scrollHeight - reader.scrollTop - reader.clientHeight < 40;
  const r = await api("PUT", form.dataset.url, {[field.name]: value});
  if (!r.ok) {
    said.textContent = await refusal(r);
    return;
  }
  settingsApply(await r.json());
  // Larger text makes the conversation taller: a reader at the newest line stays there.
  if (atEnd) reader.scrollTop = reader.scrollHeight;
  said.textContent = form.dataset.saved;
}

for (const form of forms) {
  form.addEventListener("change", (e) => {
    const field = e.target;
    if (field.name) settingChange(form, field, field.type === "checkbox" ? field.checked : field.value);
  });
  // "The theme's colour": the setting emptied (a colour picker cannot be empty).
  form.addEventListener("click", (e) => {
    const clear = e.target.closest("[data-reading-clear]");
    if (clear) settingChange(form, form.elements[clear.dataset.readingClear], "");
  });
  form.addEventListener("submit", (e) => e.preventDefault());
}

async function timeZoneKeep() {
  const url = page.dataset.readingUrl;
  let zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (error) {
    return;
  }
  if (!url || !zone || zone === page.dataset.readingTimeZone) return;
  if (sessionStorage.getItem("time-zone-refused") === zone) return;
  // A zone the server does not know is refused (400): the server's clock is used, no message,
  // and it is not asked again on every page of this tab.
  const r = await api("PUT", url, {time_zone: zone});
  if (r.ok) page.dataset.readingTimeZone = zone;
  else if (r.status === 400) sessionStorage.setItem("time-zone-refused", zone);
}

timeZoneKeep();
