// The library page: a card file dropped on the import box is imported at once.
(function () {
  const zone = document.getElementById("card-drop");
  if (!zone) return;
  const input = zone.querySelector("input[type=file]");
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    input.files = e.dataTransfer.files;
    zone.requestSubmit();
  });
})();
