// "Start a scene": the characters answer in the order they were ticked, not the page's order.
// Characters found by typing (pick_filter.js) join the list later: the form listens for them all.
(function () {
  for (const form of document.querySelectorAll("form.start-group")) {
    const order = form.querySelector("input[name=order]");
    let ticked = [...form.querySelectorAll("input[name=character_ids]")]
      .filter((box) => box.checked).map((box) => box.value);
    const keep = () => { order.value = ticked.join(","); };
    form.addEventListener("change", (event) => {
      const box = event.target;
      if (!(box instanceof HTMLInputElement) || box.name !== "character_ids") return;
      ticked = ticked.filter((id) => id !== box.value);
      if (box.checked) ticked.push(box.value);
      keep();
    });
    keep();
  }
})();
