// Beside an item's visibility: who will see it, following the choice as it changes
// (templates/library/_visibility_field.html holds both sentences, in the page's language).
(function () {
  for (const select of document.querySelectorAll("select[data-visibility-hint]")) {
    const hint = document.getElementById(select.dataset.visibilityHint);
    if (!hint) continue;
    const say = () => { hint.textContent = hint.dataset[select.value] || ""; };
    select.addEventListener("change", say);
    say();
  }
})();
