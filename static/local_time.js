// Times are stored in UTC; every page shows them on the reader's clock, with the day too when
// it is not today (and the year when it is not this one), written in the page's language (the
// one the player chose, not the browser's). The chat page calls it for new messages.
(function () {
  const language = document.documentElement.lang || undefined;

  // One formatter per kind of time: toLocaleString makes one per call, a tenth of drawing a
  // thousand messages on a phone (2.6 of ~25 s at 4× CPU slowdown).
  const formats = {};
  function format(when, key, options) {
    formats[key] = formats[key] || new Intl.DateTimeFormat(language, options);
    return formats[key].format(when);
  }
  // toLocaleString(language)'s own fields: the date and the time, to the second.
  const WHOLE = {year: "numeric", month: "numeric", day: "numeric",
                 hour: "numeric", minute: "numeric", second: "numeric"};

  function localTime(el) {
    const when = new Date(el.getAttribute("datetime"));
    if (isNaN(when)) return;
    const now = new Date();
    const options = {hour: "2-digit", minute: "2-digit"};
    if (when.toDateString() !== now.toDateString()) Object.assign(options, {month: "short", day: "numeric"});
    if (when.getFullYear() !== now.getFullYear()) options.year = "numeric";
    el.textContent = format(when, Object.keys(options).join(), options);
    el.title = format(when, "whole", WHOLE);
    el.dataset.local = "1";
  }
  // A tooltip that names a time ("edited 2026-11-29T05:44:10+00:00") says it as the page does.
  function localTitle(el) {
    const stamp = el.dataset.titleWhen;
    const when = new Date(stamp);
    if (!isNaN(when)) el.title = el.title.replace(stamp, when.toLocaleString(language));
    el.dataset.local = "1";
  }
  window.localTimes = (scope) => {
    for (const el of (scope || document).querySelectorAll("time[datetime]:not([data-local])")) localTime(el);
    for (const el of (scope || document).querySelectorAll("[data-title-when]:not([data-local])")) localTitle(el);
  };
  document.addEventListener("DOMContentLoaded", () => window.localTimes(document));
  // Rows htmx brings later (a history page, a search) too.
  document.addEventListener("htmx:load", (e) => window.localTimes(e.target));
})();
