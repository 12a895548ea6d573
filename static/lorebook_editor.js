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
  let keptRows = new Set();  // shown whatever the search: see the end
  const field = (row, name) => form.elements[`e${row.dataset.uid}_${name}`];
  const text = (row) => row.textContent.toLowerCase()
    + " " + [...row.querySelectorAll("textarea, input:not([type])")].map((f) => f.value)
      .join(" ").toLowerCase();

  // Does the row answer the search and the filter? A row kept in view (the entry being
  // edited) may not: it is then shown marked as such, and not counted.
  function matches(row) {
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
    let matching = 0;
    for (const row of rows) {
      const match = Boolean(matches(row));
      row.hidden = !match && !keptRows.has(row);
      row.classList.toggle("lore-unmatched", !match && !row.hidden);
      row.querySelector("[data-role=unmatched]").hidden = match || row.hidden;
      if (match) matching += 1;
    }
    count.textContent = `${matching} / ${rows.length}`;
    barRedraw();
  }

  // One entry open at a time: opening one closes the others (their values stay in the form).
  box.addEventListener("toggle", (event) => {
    const opened = event.target;
    if (!opened.matches || !opened.matches("details.lore-entry") || !opened.open) return;
    // Entries a refused save marked stay open until they are saved right.
    box.querySelectorAll("details.lore-entry[open]").forEach((d) => {
      if (d !== opened && !d.closest(".lore-row").dataset.problem) d.open = false;
    });
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
    rows.filter((row) => !row.hidden && !row.classList.contains("lore-unmatched")).forEach((row) => {
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

  // An entry named by "Test this text" opens in the list, whatever the search hides.
  function entryOpen(row) {
    keptRows = new Set([row]);
    redraw();
    const entry = row.querySelector("details.lore-entry");
    entry.open = true;
    row.scrollIntoView({block: "start"});
    entry.querySelector("summary").focus({preventScroll: true});
  }
  document.addEventListener("click", (event) => {
    const link = event.target.closest("[data-lore-open]");
    const row = link && rows.find((r) => r.dataset.uid === link.dataset.loreOpen);
    if (!row) return;
    event.preventDefault();
    entryOpen(row);
  });

  // "+ New entry" sits above a long list: it jumps to the form at the bottom, keys first.
  tools.querySelector("[data-testid=lore-new]").addEventListener("click", (event) => {
    event.preventDefault();
    document.getElementById("new-entry").scrollIntoView({block: "start"});
    form.elements.new_keys.focus({preventScroll: true});
  });

  // Saving reloads the page: the search, sort and filter come back after it, the open entry is
  // open again (its "More" too), and the rows in sight are where they were, even when rows
  // above them were deleted or opened, so an author deep in a long book does not start again.
  const placeKey = `lore-place:${location.pathname}`;
  const deleting = (row) => field(row, "delete") && field(row, "delete").checked;
  // With several entries open (a refused save's), the one the author was in last is kept.
  let lastEntry = null;
  box.addEventListener("focusin", (event) => {
    lastEntry = event.target.closest("details.lore-entry") || lastEntry;
  });
  form.addEventListener("submit", () => {
    // An entry the search hides stays closed: the search shows what the author asked for.
    const open = [lastEntry, ...box.querySelectorAll("details.lore-entry[open]")]
      .find((entry) => entry && entry.open && !entry.closest(".lore-row").hidden);
    const more = open && open.querySelector("details.lore-more");
    const anchor = rows.find((row) => !row.hidden && !deleting(row)
      && row.getBoundingClientRect().bottom > 0);
    sessionStorage.setItem(placeKey, JSON.stringify({
      uid: open ? open.closest(".lore-row").dataset.uid : null, more: Boolean(more && more.open),
      anchor: anchor ? anchor.dataset.uid : null,
      anchorTop: anchor ? anchor.getBoundingClientRect().top : 0,
      made: Boolean(form.elements.new_keys.value || form.elements.new_content.value),
      search: search.value, sort: sort.value, filter: filter.value, scrollY: window.scrollY}));
  });
  let place = null;
  try { place = JSON.parse(sessionStorage.getItem(placeKey) || "null"); } catch (e) { place = null; }
  sessionStorage.removeItem(placeKey);
  // After a refused save the author's open entry stays open where it was, and so do the
  // entries the server marked (their errors beside the fields named); the search, sort and
  // filter stay too.
  const refusedRows = rows.filter((row) => row.dataset.problem);
  const placeRow = place && rows.find((row) => row.dataset.uid === place.uid);
  keptRows = new Set([placeRow, ...refusedRows].filter(Boolean));
  if (place) {
    search.value = place.search || "";
    if ([...sort.options].some((o) => o.value === place.sort)) sort.value = place.sort;
    if ([...filter.options].some((o) => o.value === place.filter)) filter.value = place.filter;
  }
  redraw();
  const wrong = errorsPlace();
  if (placeRow) {
    const entry = placeRow.querySelector("details.lore-entry");
    entry.open = true;
    const more = entry.querySelector("details.lore-more");
    if (more && place.more) more.open = true;
  }
  // The field to correct: the first named in the author's open entry, else the first named.
  const fix = (placeRow && wrong.find((f) => placeRow.contains(f))) || wrong[0];
  if (fix) fix.focus({preventScroll: true});
  if (place) {
    const anchor = rows.find((row) => row.dataset.uid === place.anchor && !row.hidden);
    // Again once the page has loaded, which is when the browser puts a reloaded page back at
    // its own idea of the position.
    const back = () => {
      window.scrollTo(0, anchor
        ? anchor.getBoundingClientRect().top + window.scrollY - place.anchorTop : place.scrollY);
      if (fix) inSight(fix);
    };
    back();
    window.addEventListener("load", back, {once: true});
    // Entries are often written one after another: the next one's keys are ready to type.
    if (place.made && !fix) form.elements.new_keys.focus({preventScroll: true});
  } else if (fix) {
    inSight(fix);
  }

  // Each error of a refused save goes beside the field it names, which says it is wrong.
  function errorsPlace() {
    const fields = [];
    for (const error of form.querySelectorAll(".lore-field-error[data-for]")) {
      const named = form.elements[error.dataset.for];
      if (!named || !named.closest) continue;
      (named.closest("label") || named).after(error);
      named.setAttribute("aria-invalid", "true");
      named.setAttribute("aria-describedby",
        `${named.getAttribute("aria-describedby") || ""} ${error.id}`.trim());
      const more = named.closest("details.lore-more");
      if (more) more.open = true;
      fields.push(named);
    }
    // In the order the page shows them, whatever order the server found them in.
    return fields.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  }

  function inSight(field) {
    const box = field.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight - 80) field.scrollIntoView({block: "center"});
  }
})();
