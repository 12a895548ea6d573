// The top bar on a phone: one row, its links behind ≡ Menu (static/app.css, "top bar" block).
// The button opens them as a list under the bar; Escape, a tap outside or a second press close
// it, and the focus goes back to the button. On a wide screen the button is hidden and the
// links are always shown.
(function () {
  function wire() {
    const bar = document.querySelector(".topbar");
    const toggle = document.getElementById("nav-toggle");
    if (!bar || !toggle) return;
    const set = (open, {focus = false} = {}) => {
      bar.classList.toggle("open", open);
      toggle.setAttribute("aria-expanded", String(open));
      if (open && focus) {
        const first = bar.querySelector("nav a, nav select, nav button");
        if (first) first.focus();
      }
    };
    toggle.addEventListener("click", () => set(!bar.classList.contains("open"), {focus: true}));
    bar.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && bar.classList.contains("open")) {
        e.preventDefault();
        set(false);
        toggle.focus();
      }
    });
    document.addEventListener("pointerdown", (e) => {
      if (bar.classList.contains("open") && !bar.contains(e.target)) set(false);
    }, true);
    // The chat page's ≡ (static/chat/room.js) brings the folded bar back and opens its menu.
    window.topbarOpen = () => { if (toggle.offsetParent) set(true, {focus: true}); return !!toggle.offsetParent; };
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
