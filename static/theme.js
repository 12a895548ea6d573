// Light / dark: follows the system until the player picks one; the choice is kept per browser.
(function () {
  const button = document.getElementById("theme-toggle");
  if (!button) return;
  const root = document.documentElement;
  const systemDark = () => window.matchMedia("(prefers-color-scheme: dark)").matches;
  const current = () => root.dataset.theme || (systemDark() ? "dark" : "light");
  button.addEventListener("click", () => {
    const next = current() === "dark" ? "light" : "dark";
    root.dataset.theme = next;
    localStorage.setItem("personalab-theme", next);
  });
})();
