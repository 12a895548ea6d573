// Alternate greetings in the character editor: move a greeting up or down, or remove it.
// The boxes are submitted in page order, so the order on the page is the order saved.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-greeting]");
  if (!button) return;
  const row = button.closest(".greeting-row");
  const action = button.dataset.greeting;
  if (action === "up" && row.previousElementSibling) {
    row.parentNode.insertBefore(row, row.previousElementSibling);
  } else if (action === "down" && row.nextElementSibling) {
    row.parentNode.insertBefore(row.nextElementSibling, row);
  } else if (action === "remove") {
    row.remove();
  }
});
