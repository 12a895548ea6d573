// A save reloads an editor (character, background, persona: form[data-keep-place]) at its top:
// the author comes back to where they were (the field being typed in, else the first in view, at
// the same height on the screen), as the lorebook editor does.
(function () {
  const form = document.querySelector("form[data-keep-place]");
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
  // A refused save says why above the fields: that sentence comes into sight, not the place
  // the author pressed Save from (where nothing seemed to have happened).
  const refusal = document.querySelector("main .error");
  if (refusal) {
    refusal.scrollIntoView({block: "center"});
    return;
  }
  const back = () => {
    const named = place.name ? form.elements.namedItem(place.name) : null;
    const field = named && named.length !== undefined && !named.tagName ? named[0] : named;
    window.scrollTo(0, field && field.offsetParent
      ? field.getBoundingClientRect().top + window.scrollY - place.top : place.scrollY);
  };
  back();
  window.addEventListener("load", back, {once: true});
  // "Character saved." sits at the page's top, now out of sight: it floats over the page a while.
  const flash = document.querySelector(".flash");
  if (flash && flash.getBoundingClientRect().bottom < 0) {
    flash.classList.add("floating");
    setTimeout(() => flash.classList.remove("floating"), 6000);
  }
})();
