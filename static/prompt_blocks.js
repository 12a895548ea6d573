// The chat drawer's prompt blocks: import a SillyTavern preset, switch blocks on and off, edit
// SillyTavern's utility prompts (restore their defaults), export.
// Everything goes through the REST API (session cookie + CSRF); names and texts are set as text.
(function () {
  const card = document.getElementById("prompt-blocks");
  if (!card) return;
  const csrf = (document.cookie.match(/(?:^|; )csrftoken=([^;]*)/) || [])[1] || "";
  const list = card.querySelector("[data-role=blocks]");
  const skipped = card.querySelector("[data-role=skipped]");
  const error = card.querySelector("[data-role=error]");
  const regex = card.querySelector("[data-role=regex]");
  const managerUrl = card.dataset.managerUrl;
  const utility = card.querySelector("[data-role=utility]");
  let blocks = [];
  let defaults = {};

  function problem(text) {
    error.textContent = text || "";
    error.hidden = !text;
  }

  async function call(url, options) {
    const response = await fetch(url, {credentials: "same-origin", ...options,
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf}});
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      const found = body.error || {};
      const fields = Object.entries(found.fields || {}).map(([k, v]) => `${k}: ${v}`).join("; ");
      throw new Error([found.message, fields].filter(Boolean).join(" ") || response.statusText);
    }
    return body;
  }

  function show(manager) {
    blocks = manager.blocks || [];
    list.replaceChildren(...blocks.map((block, index) => {
      const item = document.createElement("li");
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.className = "inline-check";
      box.checked = !!block.enabled;
      box.dataset.index = String(index);
      const where = block.place === "depth" ? `depth ${block.depth}, ${block.role}`
        : `${block.place.replace("_", " ")}, ${block.role}`;
      label.append(box, ` ${block.name} `);
      const note = document.createElement("small");
      note.className = "muted";
      note.textContent = `(${where})`;
      label.append(note);
      item.append(label);
      return item;
    }));
    const left = manager.skipped || [];
    skipped.replaceChildren();
    if (left.length) {
      const title = document.createElement("p");
      title.textContent = card.dataset.error;
      const items = document.createElement("ul");
      items.append(...left.map((s) => {
        const li = document.createElement("li");
        li.textContent = `${s.name}: ${s.reason}`;
        return li;
      }));
      skipped.append(title, items);
    }
    showScripts(manager);
    showUtility(manager);
  }

  // SillyTavern's utility prompts: each line is its own or the default (`utility_defaults`);
  // only lines that differ from the default are saved, so a restored line follows the default.
  function showUtility(manager) {
    defaults = manager.utility_defaults || {};
    const own = manager.utility || {};
    for (const row of utility.querySelectorAll(".utility-row")) {
      const key = row.dataset.key;
      row.querySelector("textarea").value = typeof own[key] === "string" ? own[key] : (defaults[key] || "");
      markDefault(row);
    }
    utility.querySelector("input[data-key=continue_prefill]").checked = own.continue_prefill === true;
  }

  function markDefault(row) {
    row.querySelector("[data-role=is-default]").hidden =
      row.querySelector("textarea").value !== (defaults[row.dataset.key] || "");
  }

  utility.addEventListener("input", (event) => {
    const row = event.target.closest(".utility-row");
    if (row) markDefault(row);
    utility.querySelector("[data-role=utility-saved]").hidden = true;
  });

  utility.addEventListener("click", async (event) => {
    const restore = event.target.closest("[data-role=restore]");
    if (restore) {
      const row = restore.closest(".utility-row");
      row.querySelector("textarea").value = defaults[row.dataset.key] || "";
      markDefault(row);
      return;
    }
    if (!event.target.closest("[data-role=utility-save]")) return;
    const changed = {};
    for (const row of utility.querySelectorAll(".utility-row")) {
      const value = row.querySelector("textarea").value;
      if (value !== (defaults[row.dataset.key] || "")) changed[row.dataset.key] = value;
    }
    if (utility.querySelector("input[data-key=continue_prefill]").checked) changed.continue_prefill = true;
    try {
      show(await call(managerUrl, {method: "PUT", body: JSON.stringify({utility: changed})}));
      utility.querySelector("[data-role=utility-saved]").hidden = false;
      problem("");
    } catch (e) {
      problem(e.message);
    }
  });

  function showScripts(manager) {
    const count = (manager.regex_scripts || []).length;
    regex.replaceChildren();
    if (!count) return;
    const text = document.createElement("p");
    text.textContent = card.dataset.regexCount.replace("N", String(count));
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.className = "inline-check";
    box.checked = !!manager.regex_scripts_allowed;
    box.addEventListener("change", async () => {
      try {
        const body = JSON.stringify({regex_scripts_allowed: box.checked});
        show(await call(managerUrl, {method: "PUT", body}));
        problem("");
      } catch (e) {
        box.checked = !box.checked;
        problem(e.message);
      }
    });
    label.append(box, ` ${card.dataset.regexAllow}`);
    regex.append(text, label);
  }

  list.addEventListener("change", async (event) => {
    const box = event.target.closest("input[data-index]");
    if (!box) return;
    const changed = blocks.map((b, i) => (i === Number(box.dataset.index)
      ? {...b, enabled: box.checked} : b));
    try {
      show(await call(managerUrl, {method: "PUT", body: JSON.stringify({blocks: changed})}));
      problem("");
    } catch (e) {
      box.checked = !box.checked;
      problem(e.message);
    }
  });

  card.querySelector("[data-role=preset-file]").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try {
      const preset = JSON.parse(await file.text());
      await call(card.dataset.presetUrl, {method: "POST", body: JSON.stringify(preset)});
      show(await call(managerUrl, {method: "GET"}));
      problem("");
    } catch (e) {
      problem(e.message);
    }
    event.target.value = "";
  });

  const reset = card.querySelector("[data-role=reset]");
  if (reset) {
    reset.addEventListener("click", async () => {
      try {
        show(await call(card.dataset.resetUrl, {method: "POST"}));
        problem("");
      } catch (e) {
        problem(e.message);
      }
    });
  }

  call(managerUrl, {method: "GET"}).then(show).catch((e) => problem(e.message));
})();
