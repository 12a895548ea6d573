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
