// An editor (character, background, persona: form[data-keep-place]) typed in and not saved asks
// before the page is left (a link, a reload, closing the tab): the browser's own "leave site?"
// question, in the browser's language. Saving, or a form that asks to leave on purpose, does not.
(function () {
  const form = document.querySelector("form[data-keep-place]");
  if (!form) return;
  let edited = false;
  const mark = (event) => { if (form.contains(event.target)) edited = true; };
  form.addEventListener("input", mark);
  form.addEventListener("change", mark);
  // Any form of the page sent on purpose (Save, Delete, the outline's own forms) leaves freely.
  document.addEventListener("submit", () => { edited = false; }, true);
  window.addEventListener("beforeunload", (event) => {
    if (!edited) return;
    event.preventDefault();
    event.returnValue = "";
  });
})();
