// Alternate greetings in the character editor: move a greeting up or down, or remove it.
// The boxes are submitted in page order, so the order on the page is the order saved.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-greeting]");
  if (!button) return;
  const row = button.closest(".greeting-row");
  const action = button.dataset.greeting;
  if (action === "up" && row.previousElementSibling) {
    row.parentNode.insertBefore(row, row.previousElementSibling);
  } else if (action === "down" && row.nextElementSibling) {
    row.parentNode.insertBefore(row.nextElementSibling, row);
  } else if (action === "remove") {
    row.remove();
  }
});

// The editor's sections (Greetings, Examples, Advanced, Lore, Scripts) fold away; a closed
// section's fields are still sent. A field the browser refuses opens its section so the author
// sees why; the sections an author opened stay open after Save (the page reloads), per page.
(function () {
  const form = document.getElementById("character-form");
  if (!form) return;
  form.addEventListener("invalid", (event) => {
    const section = event.target.closest("details");
    if (section) section.open = true;
  }, true);
  const key = `editor-sections:${location.pathname}`;
  let remembered = [];
  try { remembered = JSON.parse(sessionStorage.getItem(key) || "[]"); } catch (e) { remembered = []; }
  for (const section of form.querySelectorAll("details[data-section]")) {
    if (remembered.includes(section.dataset.section)) section.open = true;
    section.addEventListener("toggle", () => {
      const open = [...form.querySelectorAll("details[data-section][open]")].map((d) => d.dataset.section);
      try { sessionStorage.setItem(key, JSON.stringify(open)); } catch (e) { /* private mode */ }
    });
  }
})();

// A save reloads the editor at its top: the author comes back to where they were (the field in
// view, or the one being typed in, at the same height on the screen), as the lorebook does.
(function () {
  const form = document.getElementById("character-form");
  if (!form) return;
  const key = "editor-place";
  form.addEventListener("submit", () => {
    const shown = (field) => field.name && field.offsetParent && field.getBoundingClientRect().top >= 0;
    const typing = form.contains(document.activeElement) && document.activeElement.matches("textarea, input, select")
      ? document.activeElement : null;
    const field = typing && shown(typing) ? typing
      : [...form.querySelectorAll("textarea, input:not([type=hidden]), select")].find(shown);
    const place = {at: Date.now(), path: location.pathname, scrollY: window.scrollY,
                   name: field ? field.name : "", top: field ? field.getBoundingClientRect().top : 0};
    try { sessionStorage.setItem(key, JSON.stringify(place)); } catch (e) { /* private mode */ }
  });
  let place = null;
  try { place = JSON.parse(sessionStorage.getItem(key) || "null"); sessionStorage.removeItem(key); } catch (e) { place = null; }
  // A new character comes back at its own address: the place is kept across that one change.
  if (!place || Date.now() - place.at > 60000
      || (place.path !== location.pathname && !place.path.endsWith("/new"))) return;
  const back = () => {
    const named = place.name ? form.elements.namedItem(place.name) : null;
    const field = named && named.length !== undefined && !named.tagName ? named[0] : named;
    window.scrollTo(0, field && field.offsetParent
      ? field.getBoundingClientRect().top + window.scrollY - place.top : place.scrollY);
  };
  back();
  window.addEventListener("load", back, {once: true});
})();
