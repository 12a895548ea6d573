// Type to find in a long library list: a search box above a `<select data-pick="Find a …">`
// keeps only the options holding every word typed and picks the first of them; above a
// `[data-pick-list]` group of ticks it hides the unticked ones that do not match. Names that
// start with the letters typed come first. The current
// (or proposed) choice comes first. Short lists stay as they are. Options leave the select
// instead of being hidden, since a phone's own picker shows hidden options.
// A picker with `data-find-url` lists only part of what the account may see (other accounts'
// shared characters are found by typing): what is typed is also asked of that REST route, and
// the characters it finds join the picker. Its no-script search form then hides.
(function () {
  const LONG = 8;
  const ASK_FROM = 2;  // letters typed before the server is asked
  const ASK_MAX = 100;  // the route refuses more
  const ASK_AFTER_MS = 250;

  // Calls `add(characters)` then `done()` with what the route finds for the latest text typed.
  function asker(url, add, done) {
    let timer = 0;
    let latest = "";
    return (text) => {
      clearTimeout(timer);
      const wanted = text.trim().slice(0, ASK_MAX);
      latest = wanted;
      if (wanted.length < ASK_FROM) return;
      timer = setTimeout(async () => {
        let answer;
        try {
          const response = await fetch(`${url}?q=${encodeURIComponent(wanted)}`,
            {credentials: "same-origin", headers: {Accept: "application/json"}});
          if (!response.ok) return;
          answer = await response.json();
        } catch (error) {
          return;  // offline: the picker keeps what it lists
        }
        add(Array.isArray(answer.characters) ? answer.characters : []);
        if (latest === wanted) done();
      }, ASK_AFTER_MS);
    };
  }
  const words = (text) => text.toLowerCase().split(/\s+/).filter(Boolean);
  const holds = (text, wanted) => wanted.every((word) => text.includes(word));
  const findText = (node) => `${node.textContent} ${node.dataset.find || ""}`.toLowerCase();
  // A name that starts with what was typed comes before one where a later word starts with
  // it, and that before one that holds it further in; each word typed counts.
  const rank = (node, wanted) => {
    if (!node.value) return -1;  // "— none —" stays on top
    const text = node.textContent.trim().toLowerCase();
    const starts = text.split(/\s+/);
    return wanted.reduce((sum, word) => sum + (text.startsWith(word) ? 0
      : starts.some((part) => part.startsWith(word)) ? 1 : 2), 0);
  };
  const ranked = (nodes, wanted) => nodes
    .map((node, index) => [rank(node, wanted), index, node])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((entry) => entry[2]);

  function box(label, owner) {
    const input = document.createElement("input");
    input.type = "search";
    input.className = "pick-filter";
    input.setAttribute("aria-label", label);
    input.placeholder = label;
    input.autocomplete = "off";
    input.enterKeyHint = "done";
    input.dataset.testid = "pick-filter";
    // Enter in a search box would send the form before the author has picked.
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") event.preventDefault();
    });
    const none = document.createElement("small");
    none.className = "pick-none muted";
    none.hidden = true;
    none.setAttribute("aria-live", "polite");
    none.textContent = owner.dataset.pickNone || "";
    return { input, none };
  }

  // A filter box inside a <label> would take the label's name from its field: it goes before it.
  const anchor = (node) => (node.parentElement && node.parentElement.tagName === "LABEL"
    ? node.parentElement : node);

  function selectEnhance(select) {
    const chosen = select.selectedOptions[0];
    const firstReal = [...select.options].find((option) => option.value);
    if (chosen && chosen.value && firstReal && chosen !== firstReal) {
      select.insertBefore(chosen, firstReal);
    }
    const all = [...select.options];
    const url = select.dataset.findUrl;
    if (!url && all.filter((option) => option.value).length < LONG) return;
    const { input, none } = box(select.dataset.pick, select);
    if (select.id) input.setAttribute("aria-controls", select.id);
    const place = anchor(select);
    place.before(input, none);
    const filter = () => {
      const wanted = words(input.value);
      const keep = ranked(all.filter((option) => !option.value
        || holds(findText(option), wanted)), wanted);
      const picked = select.value;
      select.replaceChildren(...keep);
      const matches = keep.filter((option) => option.value);
      if (wanted.length && matches.length && !matches.some((o) => o.value === picked)) {
        select.value = matches[0].value;
        select.dispatchEvent(new Event("change", { bubbles: true }));
      } else if (keep.some((option) => option.value === picked)) {
        select.value = picked;
      }
      none.hidden = matches.length > 0;
    };
    const ask = url ? asker(url, (found) => {
      const known = new Set(all.map((option) => option.value));
      for (const character of found) {
        if (known.has(character.character_id)) continue;
        const option = new Option(character.label, character.character_id);
        option.dataset.find = character.tags || "";
        all.push(option);
      }
    }, filter) : () => {};
    input.addEventListener("input", () => { filter(); ask(input.value); });
  }

  function listEnhance(list) {
    const items = [...list.querySelectorAll("label")];
    const ticked = items.filter((item) => item.querySelector("input:checked"));
    if (ticked.length && items[0]) items[0].before(...ticked);
    const url = list.dataset.findUrl;
    if (!url && items.length < LONG) return;
    list.classList.add("pick-list-long");
    const { input, none } = box(list.dataset.pickList, list);
    list.before(input, none);
    const name = (items[0] && items[0].querySelector("input")) ? items[0].querySelector("input").name
      : "character_ids";
    const filter = () => {
      const wanted = words(input.value);
      let found = 0;
      for (const item of items) {
        const match = holds(findText(item), wanted);
        item.hidden = !match && !item.querySelector("input:checked");
        if (match) found += 1;
      }
      none.hidden = found > 0;
    };
    const ask = url ? asker(url, (characters) => {
      const known = new Set(items.map((item) => item.querySelector("input").value));
      for (const character of characters) {
        if (known.has(character.character_id)) continue;
        const item = document.createElement("label");
        item.className = "check";
        item.dataset.find = character.tags || "";
        const tick = document.createElement("input");
        tick.type = "checkbox";
        tick.name = name;
        tick.value = character.character_id;
        item.append(tick, ` ${character.label}`);
        list.append(item);
        items.push(item);
      }
    }, filter) : () => {};
    input.addEventListener("input", () => { filter(); ask(input.value); });
  }

  function enhance(root) {
    for (const select of root.querySelectorAll("select[data-pick]:not([data-picked])")) {
      select.dataset.picked = "1";
      selectEnhance(select);
    }
    for (const list of root.querySelectorAll("[data-pick-list]:not([data-picked])")) {
      list.dataset.picked = "1";
      listEnhance(list);
    }
  }

  enhance(document);
  if (document.querySelector("[data-find-url][data-picked]")) {
    // One inside another form (the import check's) goes whole: its Find would be that form's
    // default button, which Enter in any of its fields presses.
    for (const find of document.querySelectorAll("[data-character-find]")) {
      if (find.tagName === "FORM") find.hidden = true;
      else find.remove();
    }
  }
  // The chat drawer's members card comes back from htmx after every change.
  document.addEventListener("htmx:load", (event) => enhance(event.detail.elt));
})();
