// Small behaviours every page shares, wired here instead of inline handlers (onclick=…),
// which the Content-Security-Policy refuses. All of them read our own data-* attributes,
// which rendered user and model text never carries (the sanitizer drops data-*).
(function () {
  // A picker that acts at once (the language): submit its form on change.
  // A model picked from a server's list fills the field its data-fill names.
  document.addEventListener("change", (event) => {
    const field = event.target;
    if (field.matches("select[data-autosubmit]")) field.form.submit();
    const target = field.dataset.fill && field.form && field.form.elements[field.dataset.fill];
    if (target && field.value) target.value = field.value;
  });

  // A form's "Saved." speaks of what was saved: once a field changes again it is stale (a
  // value the browser then refuses to send sat beside it as if saved).
  document.addEventListener("input", (event) => {
    const form = event.target.closest && event.target.closest("form");
    if (form) for (const said of form.querySelectorAll("[data-saved]")) said.hidden = true;
  });

  const storedForget = () => {
    try {
      for (const [storage, prefix] of [[localStorage, "personalab-draft-"],
                                       [sessionStorage, "personalab-place-"]]) {
        for (const key of Object.keys(storage)) if (key.startsWith(prefix)) storage.removeItem(key);
      }
    } catch (e) { /* storage off: nothing was kept */ }
  };

  // A notice ("Background switched…") goes when its × is pressed; it stayed until the page
  // was left.
  document.addEventListener("click", (event) => {
    const close = event.target.closest("button[data-flash-close]");
    if (!close) return;
    const list = close.closest(".flash");
    close.closest("li").remove();
    if (list && !list.children.length) list.remove();
  });

  // "Are you sure?" before a delete, an archive or a reset: on the button or on its form.
  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-confirm]");
    if (button && !window.confirm(button.dataset.confirm)) event.preventDefault();
  });
  document.addEventListener("submit", (event) => {
    const form = event.target;
    // Log out: the chats' unsent drafts and reading places go with the account, so the next
    // person at this browser finds none of them (not even in the browser's storage).
    if (form.matches("form[data-forget-drafts]")) {
      storedForget();
      addEventListener("pagehide", storedForget);  // after the chat keeps its place as it goes
    }
    if (form.matches("form[data-confirm]") && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
    }
  });

  document.addEventListener("DOMContentLoaded", () => {
    if (!window.htmx) return;
    window.htmx.onLoad((element) => {
      // A good "Test connection": the errors an earlier save left under its fields are stale, and
      // a server with a single model needs no picking.
      const tested = element.matches && (element.matches("[data-clears-errors]") ? element
        : element.querySelector("[data-clears-errors]"));
      if (tested) {
        for (const name of tested.dataset.clearsErrors.split(" ")) {
          document.querySelectorAll(`.field-error[data-field="${name}"]`).forEach((e) => e.remove());
        }
        const only = tested.querySelector("select[data-fill-now]");
        const target = only && only.form && only.form.elements[only.dataset.fill];
        if (target) { target.value = only.dataset.fillNow; only.value = only.dataset.fillNow; }
      }
    });
  });
})();
