// The background's outline editor saves one point at a time and redraws the whole list (htmx):
// a point typed in and not yet saved went back to its stored text when another point was saved,
// moved or added. Its typing is carried over to the redrawn list, by the text it was showing.
// A point is a growing box (a long point is read whole) that Enter saves, as a line's field did.
(function () {
  document.addEventListener("keydown", (event) => {
    const box = event.target.closest && event.target.closest("#outline-editor ol [name=content]");
    if (!box || event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    box.form.querySelector("button[value=edit]").click();
  });
  const typed = new Map();
  document.addEventListener("htmx:beforeSwap", (event) => {
    const editor = document.getElementById("outline-editor");
    if (!editor || event.detail.target !== editor) return;
    typed.clear();
    const sent = event.detail.requestConfig && event.detail.requestConfig.elt;
    for (const row of editor.querySelectorAll("ol form")) {
      if (sent && (row === sent || row.contains(sent))) continue;
      const input = row.querySelector("[name=content]");
      const shown = row.querySelector("input[name=shown]");
      if (input && shown && input.value !== shown.value) typed.set(shown.value, input.value);
    }
  });
  document.addEventListener("htmx:afterSettle", () => {
    if (!typed.size) return;
    const editor = document.getElementById("outline-editor");
    for (const row of editor ? editor.querySelectorAll("ol form") : []) {
      const input = row.querySelector("[name=content]");
      const shown = row.querySelector("input[name=shown]");
      if (input && shown && typed.has(shown.value)) input.value = typed.get(shown.value);
    }
    typed.clear();
  });
})();
