// "Remove the picture" in the character, persona and background editors: the form's checkbox
// (kept for a browser without scripts) becomes a button that calls the same REST endpoint as
// any API client (DELETE /api/v1/<kind>/<id>/picture), so the picture goes at once, without
// saving the rest of the form, and the page says so in words (a refusal or an unreachable server
// too, in the page's language: static/rest.js).
import {api, refusal} from "./rest.js";

(function () {
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
      const response = await api("DELETE", box.dataset.pictureDelete);
      if (!response.ok) {
        status.className = "error";
        status.textContent = await refusal(response);
        button.disabled = false;
        return;
      }
      pick.querySelectorAll("[data-role=avatar-now]").forEach((img) => img.remove());
      status.textContent = box.dataset.done || "";
      button.remove();
    });
  });
})();
