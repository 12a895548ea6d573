// The chat drawer's prompt blocks: import a SillyTavern preset, switch blocks on and off, edit
// SillyTavern's utility prompts (restore their defaults), export.
// Everything goes through the REST API (static/rest.js: session cookie + CSRF, a refusal or an
// unreachable server said in the page's language); names and texts are set as text.
import {api, refusal} from "./rest.js";

// Why a preset's part was not imported, as personalab/lib/prompt_manager.py writes it → the
// card's data-* holding it in the page's language; any other reason is shown as written.
const SKIP_REASONS = {
  "switched off in the preset; PersonaLab always sends this section when it has text": "skipSwitchedOff",
  "in the order but not among the preset's prompts": "skipNotInPrompts",
  "a SillyTavern marker PersonaLab has no section for": "skipMarker",
  "world info is placed as its own section": "skipWorldInfo",
  "not supported yet": "skipNotSupported",
};

(function () {
  const card = document.getElementById("prompt-blocks");
  if (!card) return;
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

  // One request at a time, in the order made: two switches clicked in quick succession, or a
  // switch clicked while the first read answers, reach the server (or two of its workers) in
  // that order. Each switch sends every block as the page then shows it, and the blocks are
  // drawn again from the last answer only, so a switch clicked meanwhile is not undrawn.
  let queue = Promise.resolve();
  let waiting = 0;

  function queued(method, url, body) {
    waiting += 1;
    const done = queue.then(() => call(method, url, body)).finally(() => { waiting -= 1; });
    queue = done.catch(() => {});
    return done;
  }

  // While an import or a reset replaces the blocks, the switches and the utility lines wait:
  // a change made to the blocks being replaced would be sent after them and undo them.
  function held(on) {
    for (const part of [list, regex, utility]) part.inert = on;
    list.setAttribute("aria-busy", String(on));
  }

  async function load(method, url, body) {
    const manager = await queued(method, url, body);
    if (!waiting) show(manager);
  }

  // A refusal's field errors (a preset's bad block) are said after its message.
  async function call(method, url, body) {
    const response = await api(method, url, body);
    if (response.ok) return response.json();
    const fields = await response.clone().json()
      .then((found) => Object.entries(found.error.fields || {}).map(([k, v]) => `${k}: ${v}`).join("; "))
      .catch(() => "");
    throw new Error([await refusal(response), fields].filter(Boolean).join(" "));
  }

  // A block's place in the page's language (data-place-* on the card), the role as the API has it.
  function placeName(block) {
    const key = "place" + block.place.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join("");
    const name = card.dataset[key] || block.place.replace("_", " ");
    return block.place === "depth" ? name.replace("N", String(block.depth)) : name;
  }

  // The message role in the reader's language (data-role-system …); another value as given.
  function roleName(role) {
    const key = `role${String(role).charAt(0).toUpperCase()}${String(role).slice(1)}`;
    return card.dataset[key] || role;
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
      const where = `${placeName(block)}, ${roleName(block.role)}`;
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
        li.textContent = `${s.name}: ${card.dataset[SKIP_REASONS[s.reason]] || s.reason}`;
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
      await load("PUT", managerUrl, {utility: changed});
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
        await load("PUT", managerUrl, {regex_scripts_allowed: box.checked});
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
    const boxes = list.querySelectorAll("input[data-index]");
    const changed = blocks.map((b, i) => ({...b, enabled: boxes[i] ? boxes[i].checked : b.enabled}));
    try {
      await load("PUT", managerUrl, {blocks: changed});
      problem("");
    } catch (e) {
      box.checked = !box.checked;
      problem(e.message);
    }
  });

  // The import is confirmed by name: the blocks list changing alone went unnoticed.
  const imported = card.querySelector("[data-role=preset-imported]");
  card.querySelector("[data-role=preset-file]").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    imported.hidden = true;
    held(true);
    try {
      let preset;
      try {
        preset = JSON.parse(await file.text());
      } catch (notJson) {
        throw new Error(card.dataset.presetUnreadable);
      }
      await queued("POST", card.dataset.presetUrl, preset);
      await load("GET", managerUrl);
      held(false);
      problem("");
      imported.textContent = imported.dataset.text.replace("FILE", file.name);
      imported.hidden = false;
    } catch (e) {
      held(false);
      problem(e.message);
    }
    event.target.value = "";
  });

  const reset = card.querySelector("[data-role=reset]");
  if (reset) {
    reset.addEventListener("click", async () => {
      held(true);
      try {
        await load("POST", card.dataset.resetUrl);
        held(false);
        problem("");
      } catch (e) {
        held(false);
        problem(e.message);
      }
    });
  }

  load("GET", managerUrl).catch((e) => problem(e.message));
})();
