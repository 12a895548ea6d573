// An editor (character, background, persona: form[data-keep-place]; lorebook: form[data-ask-unsaved])
// typed in and not saved asks before the page is left (a link, a reload, closing the tab): the
// browser's own "leave site?" question, in the browser's language. Saving does not.
(function () {
  const form = document.querySelector("form[data-keep-place], form[data-ask-unsaved]");
  if (!form) return;
  let edited = false;
  const mark = (event) => { if (form.contains(event.target)) edited = true; };
  form.addEventListener("input", mark);
  form.addEventListener("change", mark);
  // A form sent on purpose (Save, Delete) leaves freely; the outline's own forms (htmx, in place)
  // leave the page where it is, with the editor's typing still unsaved.
  document.addEventListener("submit", (event) => {
    if (!event.target.matches("[hx-post]")) edited = false;
  }, true);
  window.addEventListener("beforeunload", (event) => {
    if (!edited) return;
    event.preventDefault();
    event.returnValue = "";
  });
})();
