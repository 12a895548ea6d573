// The lorebook editor at scale: entries are collapsed rows (title, keys, status), one open at a
// time, with search, sort, a filter and bulk enable / disable / delete. The form underneath is
// unchanged, so saving works without this script; sorting only changes what is shown, never
// the order the book is saved in.
(function () {
  const tools = document.querySelector("[data-testid=lore-tools]");
  const box = document.getElementById("lore-entries");
  if (!tools || !box) return;
  tools.hidden = false;
  const form = document.getElementById("lorebook-form");
  const rows = [...box.querySelectorAll(".lore-row")];
  const search = tools.querySelector("[data-role=search]");
  const sort = tools.querySelector("[data-role=sort]");
  const filter = tools.querySelector("[data-role=filter]");
  const pickAll = tools.querySelector("[data-role=pick-all]");
  const count = tools.querySelector("[data-role=count]");
  let keptRow = null;  // shown whatever the search: see the end
  const field = (row, name) => form.elements[`e${row.dataset.uid}_${name}`];
  const text = (row) => row.textContent.toLowerCase()
    + " " + [...row.querySelectorAll("textarea, input:not([type])")].map((f) => f.value)
      .join(" ").toLowerCase();

  function shown(row) {
    if (row === keptRow) return true;
    const words = search.value.trim().toLowerCase();
    const state = row.dataset.state;
    const wanted = filter.value === "all" || filter.value === state
      || (filter.value === "problem" && row.dataset.problem);
    return wanted && (!words || text(row).includes(words));
  }

  function redraw() {
    const title = (row) => row.querySelector(".lore-title").textContent.trim().toLowerCase();
    const ranked = [...rows];
    if (sort.value === "order") ranked.sort((a, b) => Number(a.dataset.order) - Number(b.dataset.order));
    if (sort.value === "title") ranked.sort((a, b) => title(a).localeCompare(title(b)));
    ranked.forEach((row, index) => { row.style.order = String(index); });
    let visible = 0;
    for (const row of rows) {
      row.hidden = !shown(row);
      if (!row.hidden) visible += 1;
    }
    count.textContent = `${visible} / ${rows.length}`;
    barRedraw();
  }

  // One entry open at a time: opening one closes the others (their values stay in the form).
  box.addEventListener("toggle", (event) => {
    const opened = event.target;
    if (!opened.matches || !opened.matches("details.lore-entry") || !opened.open) return;
    box.querySelectorAll("details.lore-entry[open]").forEach((d) => { if (d !== opened) d.open = false; });
  }, true);

  // Rows ticked far down the list are acted on from the fixed bar at the bottom, beside Save,
  // without scrolling back up to the tools.
  const bar = form.querySelector("[data-role=bulk-bar]");
  const pickedRows = () => rows.filter((row) => !row.hidden && row.querySelector(".lore-pick").checked);
  function barRedraw() {
    if (!bar) return;
    const picked = pickedRows().length;
    bar.hidden = picked === 0;
    bar.querySelector("[data-role=picked-count]").textContent = String(picked);
  }
  box.addEventListener("change", (event) => { if (event.target.matches(".lore-pick")) barRedraw(); });

  pickAll.addEventListener("change", () => {
    rows.filter((row) => !row.hidden).forEach((row) => {
      row.querySelector(".lore-pick").checked = pickAll.checked;
    });
    barRedraw();
  });

  form.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-bulk]");
    if (!button) return;
    const picked = pickedRows();
    if (!picked.length) return;
    if (button.dataset.ask && !window.confirm(button.dataset.ask)) return;
    for (const row of picked) {
      const action = button.dataset.bulk;
      if (action === "delete") field(row, "delete").checked = true;
      else field(row, "enabled").checked = action === "enable";
    }
    form.requestSubmit();
  });

  for (const control of [search, sort, filter]) control.addEventListener("input", redraw);

  // "+ New entry" sits above a long list: it jumps to the form at the bottom, keys first.
  tools.querySelector("[data-testid=lore-new]").addEventListener("click", (event) => {
    event.preventDefault();
    document.getElementById("new-entry").scrollIntoView({block: "start"});
    form.elements.new_keys.focus({preventScroll: true});
  });

  // Saving reloads the page: the open entry (else the scroll position), the search, sort and
  // filter come back after it, so an author deep in a long book does not start again at the top.
  const placeKey = `lore-place:${location.pathname}`;
  form.addEventListener("submit", () => {
    const open = box.querySelector("details.lore-entry[open]");
    const openRow = open && !open.closest(".lore-row").hidden ? open.closest(".lore-row") : null;
    sessionStorage.setItem(placeKey, JSON.stringify({
      uid: openRow ? openRow.dataset.uid : null,
      search: search.value, sort: sort.value, filter: filter.value, scrollY: window.scrollY}));
  });
  let place = null;
  try { place = JSON.parse(sessionStorage.getItem(placeKey) || "null"); } catch (e) { place = null; }
  sessionStorage.removeItem(placeKey);
  // The entry to look at stays in sight whatever is searched: the one the server opened (a
  // refused save), else the one open before the save.
  const refused = box.querySelector("details.lore-entry[open]");
  keptRow = refused ? refused.closest(".lore-row")
    : (place && rows.find((row) => row.dataset.uid === place.uid)) || null;
  // After a refused save too: the author's search, sort and filter stay.
  if (place) {
    search.value = place.search || "";
    if ([...sort.options].some((o) => o.value === place.sort)) sort.value = place.sort;
    if ([...filter.options].some((o) => o.value === place.filter)) filter.value = place.filter;
  }
  redraw();
  if (keptRow) {
    keptRow.querySelector("details.lore-entry").open = true;
    keptRow.scrollIntoView({block: "start"});
  } else if (place && place.scrollY) {
    // Ticked rows in the middle of the book stay in sight; again once the page has loaded,
    // which is when the browser puts a reloaded page back at its own idea of the position.
    const back = () => window.scrollTo(0, place.scrollY);
    back();
    window.addEventListener("load", back, {once: true});
  }
})();
