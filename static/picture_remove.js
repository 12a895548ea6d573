// "Remove the picture" in the character, persona and background editors: the form's checkbox
// (kept for a browser without scripts) becomes a button that calls the same REST endpoint as
// any API client (DELETE /api/v1/<kind>/<id>/picture), so the picture goes at once, without
// saving the rest of the form, and the page says so in words.
(function () {
  const csrf = (document.cookie.match(/(?:^|; )csrftoken=([^;]*)/) || [])[1] || "";
  document.querySelectorAll("input[type=checkbox][data-picture-delete]").forEach((box) => {
    const label = box.closest("label");
    const pick = box.closest(".avatar-pick") || label.parentElement;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.dataset.testid = "picture-remove-button";
    button.textContent = label.textContent.trim();
    const status = document.createElement("span");
    status.setAttribute("role", "status");
    status.dataset.testid = "picture-remove-status";
    label.replaceWith(button);
    button.after(status);
    button.addEventListener("click", async () => {
      button.disabled = true;
      status.className = "";
      try {
        const response = await fetch(box.dataset.pictureDelete, {
          method: "DELETE", credentials: "same-origin", headers: {"X-CSRFToken": csrf}});
        if (!response.ok) {
          const body = await response.json().catch(() => ({}));
          throw new Error((body.error && body.error.message) || response.statusText);
        }
        pick.querySelectorAll("[data-role=avatar-now]").forEach((img) => img.remove());
        status.textContent = box.dataset.done || "";
        button.remove();
      } catch (error) {
        status.className = "error";
        status.textContent = error.message;
        button.disabled = false;
      }
    });
  });
})();
