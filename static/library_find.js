// The library page's search box: while every item is on the page (`data-whole`), typing shows
// only the tiles and rows whose name, tags or blurb hold every word; the sections stay, so an
// author sees where a match is. A paged library is searched by the server (the form's Find).
(function () {
  const box = document.querySelector("[data-library-whole] [data-testid=library-search]");
  if (!box) return;
  const items = [...document.querySelectorAll("main [data-find]")];
  const none = document.querySelector("[data-testid=library-no-match]");
  box.addEventListener("input", () => {
    const words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const item of items) {
      item.hidden = !words.every((word) => item.dataset.find.includes(word));
      if (!item.hidden) shown += 1;
    }
    none.hidden = shown > 0;
  });
})();
