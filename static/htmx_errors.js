// Refusals (busy 409, expired undo 410, bad input 400...) come with a fragment saying why: show it.
document.body.addEventListener("htmx:beforeSwap", (event) => {
  const status = event.detail.xhr.status;
  if (status >= 400 && status < 500) { event.detail.shouldSwap = true; event.detail.isError = false; }
});
