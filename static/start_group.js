// "Start a scene": the characters answer in the order they were ticked, not the page's order.
(function () {
  for (const form of document.querySelectorAll("form.start-group")) {
    const order = form.querySelector("input[name=order]");
    const boxes = [...form.querySelectorAll("input[name=character_ids]")];
    let ticked = boxes.filter((box) => box.checked).map((box) => box.value);
    const keep = () => { order.value = ticked.join(","); };
    for (const box of boxes) {
      box.addEventListener("change", () => {
        ticked = ticked.filter((id) => id !== box.value);
        if (box.checked) ticked.push(box.value);
        keep();
      });
    }
    keep();
  }
})();
