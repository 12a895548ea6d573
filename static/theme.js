// Light / dark: follows the system until the player picks one; the choice is kept per browser.
// Loaded in <head> without defer: the kept choice is applied before the first paint, so it
// never flashes the other theme; the toggle is wired once the page is there.
(function () {
  const root = document.documentElement;
  const kept = localStorage.getItem("personalab-theme");
  if (kept) root.dataset.theme = kept;
  document.addEventListener("DOMContentLoaded", () => {
    const button = document.getElementById("theme-toggle");
    if (!button) return;
    const systemDark = () => window.matchMedia("(prefers-color-scheme: dark)").matches;
    const current = () => root.dataset.theme || (systemDark() ? "dark" : "light");
    button.addEventListener("click", () => {
      const next = current() === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      localStorage.setItem("personalab-theme", next);
    });
  });
})();
