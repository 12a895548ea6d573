// A form whose answer can take a while (importing a chat of 50,000 messages takes half a
// minute) says so once sent: the browser itself shows nothing until the next page arrives, and
// a second press would start the import again. The note stays until that page replaces this
// one; it reports the result or the refusal. data-busy holds the sentence, data-busy-seconds
// the elapsed time with {seconds} in it (both translated by the template).
(function () {
  const sizeWords = (bytes) => bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1024))} KB`;

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches("form[data-busy]") || event.defaultPrevented) return;
    if (form.getAttribute("aria-busy") === "true") { event.preventDefault(); return; }
    form.setAttribute("aria-busy", "true");
    const note = document.createElement("p");
    note.className = "busy-note";
    note.setAttribute("role", "status");
    note.dataset.testid = "form-busy";
    const buttons = [...form.querySelectorAll("button[type=submit], button:not([type])")];
    (buttons[0] || form.lastElementChild).after(note);
    const file = [...form.querySelectorAll("input[type=file]")].map((f) => f.files[0]).find(Boolean);
    const said = (file ? `${file.name} (${sizeWords(file.size)}): ` : "") + form.dataset.busy;
    const started = Date.now();
    const show = () => {
      const seconds = Math.round((Date.now() - started) / 1000);
      note.textContent = seconds < 2 ? said
        : `${said} ${(form.dataset.busySeconds || "{seconds} s").replace("{seconds}", seconds)}`;
    };
    show();
    // After this event the browser has read the form (a disabled button would not be sent).
    setTimeout(() => { for (const b of buttons) b.disabled = true; }, 0);
    form.busyTimer = setInterval(show, 1000);
  });

  // Back to this page from the browser's cache: the form is usable again.
  addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    for (const form of document.querySelectorAll("form[aria-busy=true][data-busy]")) {
      clearInterval(form.busyTimer);
      form.removeAttribute("aria-busy");
      form.querySelectorAll(".busy-note").forEach((n) => n.remove());
      form.querySelectorAll("button").forEach((b) => { b.disabled = false; });
    }
  });
})();
