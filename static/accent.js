// One's own accent colour (body's data-reading-accent, "#rrggbb" or "" for the theme's). Only a
// colour is stored, never a stylesheet; here it becomes the page's custom properties, with the
// shades that keep it readable on this theme's backgrounds, light or dark:
//   --accent       the fills (buttons, avatars), as chosen;
//   --on-accent    text on those fills: black or white, whichever contrasts more (always ≥ 4.5:1);
//   --accent-text  text drawn in the accent (secondary buttons, toggles): ≥ 4.5:1 on every surface;
//   --accent-line  lines drawn in it (focus rings, borders): ≥ 3:1.
// A plain script at the top of <body>, so the first paint already has the colours.
(function () {
  const body = document.body;
  const OWN = ["--accent", "--on-accent", "--accent-text", "--accent-line"];
  const SURFACES = ["--bg", "--card", "--msg", "--msg-user", "--soft"];

  function rgb(colour) {
    const probe = document.createElement("i");
    probe.style.color = colour;
    probe.hidden = true;
    body.appendChild(probe);
    const parts = getComputedStyle(probe).color.match(/[\d.]+/g) || ["0", "0", "0"];
    probe.remove();
    return parts.slice(0, 3).map(Number);
  }

  function luminance([r, g, b]) {
    const linear = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  }

  function contrast(a, b) {
    const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (high + 0.05) / (low + 0.05);
  }

  function hsl([r, g, b]) {
    [r, g, b] = [r / 255, g / 255, b / 255];
    const max = Math.max(r, g, b), min = Math.min(r, g, b), l = (max + min) / 2;
    if (max === min) return [0, 0, l];
    const d = max - min, s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
    const h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    return [h / 6, s, l];
  }

  function fromHsl([h, s, l]) {
    const q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
    const channel = (t) => {
      t = (t + 1) % 1;
      const v = t < 1 / 6 ? p + (q - p) * 6 * t : t < 1 / 2 ? q : t < 2 / 3 ? p + (q - p) * (2 / 3 - t) * 6 : p;
      return Math.round(v * 255);
    };
    return [channel(h + 1 / 3), channel(h), channel(h - 1 / 3)];
  }

  const hex = (c) => "#" + c.map((v) => v.toString(16).padStart(2, "0")).join("");

  // The colour itself when it already reads on every surface, else the same hue made darker
  // (light backgrounds) or lighter (dark ones) step by step until it does.
  function readable(colour, surfaces, ratio) {
    const worst = (c) => Math.min(...surfaces.map((s) => contrast(c, s)));
    if (worst(colour) >= ratio) return {colour, moved: 0};
    const dark = luminance(surfaces[0]) < 0.18;
    const [h, s, l] = hsl(colour);
    for (let step = 1; step <= 100; step += 1) {
      const lightness = dark ? Math.min(1, l + step / 100) : Math.max(0, l - step / 100);
      const shade = fromHsl([h, s, lightness]);
      if (worst(shade) >= ratio) return {colour: shade, moved: dark ? 1 : -1};
    }
    return {colour: dark ? [255, 255, 255] : [0, 0, 0], moved: dark ? 1 : -1};
  }

  function notesSay(moved) {
    for (const note of document.querySelectorAll("[data-accent-note]")) {
      note.textContent = moved > 0 ? note.dataset.lighter : moved < 0 ? note.dataset.darker : "";
    }
  }

  function accentApply() {
    for (const name of OWN) body.style.removeProperty(name);
    const chosen = body.dataset.readingAccent || "";
    const style = getComputedStyle(body);
    const themes = style.getPropertyValue("--accent").trim();
    for (const picker of document.querySelectorAll("input[type=color][name=accent]")) {
      picker.value = chosen || hex(rgb(themes));
    }
    if (!/^#[0-9a-fA-F]{6}$/.test(chosen)) { notesSay(0); return; }
    const accent = rgb(chosen);
    const surfaces = SURFACES.map((name) => rgb(style.getPropertyValue(name).trim()));
    const onAccent = contrast(accent, [0, 0, 0]) >= contrast(accent, [255, 255, 255]) ? "#000" : "#fff";
    const text = readable(accent, surfaces, 4.5);
    const line = readable(accent, surfaces, 3);
    body.style.setProperty("--accent", chosen);
    body.style.setProperty("--on-accent", onAccent);
    body.style.setProperty("--accent-text", hex(text.colour));
    body.style.setProperty("--accent-line", hex(line.colour));
    notesSay(text.moved);
  }

  accentApply();
  // Again when the colour, the theme or light/dark changes (the settings form, the ◐ button,
  // the system's own switch), and once the page's forms exist.
  new MutationObserver(accentApply).observe(body, {
    attributes: true, attributeFilter: ["data-reading-accent", "data-reading-theme"]});
  new MutationObserver(accentApply).observe(document.documentElement, {
    attributes: true, attributeFilter: ["data-theme"]});
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", accentApply);
  document.addEventListener("DOMContentLoaded", accentApply);
})();
