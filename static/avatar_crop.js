// A picture picked for a character, persona or background is cropped in the browser to the
// card's ratio (data-crop-ratio: width / height, 2:3 for character cards, 16:9 for a
// background), shown, and uploaded as that PNG (or data-crop-type: a wide photo is far smaller
// as a JPEG, and a background carries no card). The crop starts at the centre; when the picture
// is taller or wider than the card, the author moves it (a slider labelled data-crop-move, or
// dragging the preview), so a face at the top of a tall picture is kept. The server never
// decodes pictures; the browser's canvas does it here.
(function () {
  const MAX_HEIGHT = 768;
  const MAX_WIDTH = 1280;
  document.querySelectorAll("input[type=file][data-crop-ratio]").forEach((input) => {
    const box = input.closest(".avatar-pick") || input.parentElement;
    const preview = box.querySelector("[data-role=avatar-preview]");
    const now = box.querySelector("[data-role=avatar-now]");
    const ratio = Number(input.dataset.cropRatio) || 2 / 3;
    const type = input.dataset.cropType || "image/png";
    let picked = null;  // {image, name, width, height}: the picture as chosen, before any crop
    let offset = 0.5;  // where the crop sits along the side with room to move: 0 top/left
    let mover = null;

    function draw(canvas) {
      const {image, width, height} = picked;
      const scale = Math.min(1, MAX_HEIGHT / height, MAX_WIDTH / width);
      canvas.width = Math.round(width * scale);
      canvas.height = Math.round(height * scale);
      canvas.getContext("2d").drawImage(image, (image.width - width) * offset,
        (image.height - height) * offset, width, height, 0, 0, canvas.width, canvas.height);
    }

    async function upload() {
      const canvas = preview || document.createElement("canvas");
      draw(canvas);
      const blob = await new Promise((done) => canvas.toBlob(done, type, 0.88));
      if (!blob) return;
      const cropped = new DataTransfer();
      const extension = type === "image/jpeg" ? ".jpg" : ".png";
      cropped.items.add(new File([blob], picked.name.replace(/\.[^.]*$/, "") + extension,
        {type}));
      input.files = cropped.files;
    }

    function moverMake() {
      if (!input.dataset.cropMove || !preview) return null;
      const label = document.createElement("label");
      label.className = "crop-move";
      label.textContent = input.dataset.cropMove + " ";
      const range = document.createElement("input");
      Object.assign(range, {type: "range", min: "0", max: "100", step: "1", value: "50"});
      range.dataset.role = "crop-move";
      label.append(range);
      (input.closest("label") || input).after(label);
      range.addEventListener("input", () => { offset = range.value / 100; draw(preview); });
      range.addEventListener("change", upload);
      // Dragging the preview moves the crop the same way, the picture following the finger.
      let start = null;
      preview.addEventListener("pointerdown", (event) => {
        if (label.hidden) return;
        start = {x: event.clientX, y: event.clientY, offset};
        preview.setPointerCapture(event.pointerId);
      });
      preview.addEventListener("pointermove", (event) => {
        if (!start) return;
        const {image, width, height} = picked;
        const box = preview.getBoundingClientRect();
        const room = image.width > width ? (image.width - width) / width
          : (image.height - height) / height;
        const moved = image.width > width ? (event.clientX - start.x) / box.width
          : (event.clientY - start.y) / box.height;
        offset = Math.min(1, Math.max(0, start.offset - moved / room));
        range.value = String(Math.round(offset * 100));
        draw(preview);
      });
      const drop = () => { if (start) { start = null; upload(); } };
      preview.addEventListener("pointerup", drop);
      preview.addEventListener("pointercancel", drop);
      return label;
    }

    let busy = false;
    input.addEventListener("change", async () => {
      const file = input.files[0];
      if (busy || !file || !file.type.startsWith("image/") || file.type === "image/gif") return;
      busy = true;
      try {
        const image = await createImageBitmap(file);
        let width = image.width;
        let height = Math.round(width / ratio);
        if (height > image.height) { height = image.height; width = Math.round(height * ratio); }
        picked = {image, name: file.name, width, height};
        offset = 0.5;
        mover = mover || moverMake();
        if (mover) {
          mover.hidden = width >= image.width && height >= image.height;  // nothing to move
          mover.querySelector("input").value = "50";
          preview.style.touchAction = mover.hidden ? "" : "none";
          preview.style.cursor = mover.hidden ? "" : "grab";
        }
        await upload();
        if (preview) preview.hidden = false;
        if (now) now.hidden = true;
      } catch (error) {
        // Not a picture the browser can read: the file goes up as it is and the server says why.
      } finally {
        busy = false;
      }
    });
  });
})();
