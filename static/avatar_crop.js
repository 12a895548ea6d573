// A picture picked for a character, persona or background is cropped in the browser to the
// card's ratio (data-crop-ratio: width / height, 2:3 for character cards, 16:9 for a
// background), shown, and uploaded as that PNG (or data-crop-type: a wide photo is far smaller
// as a JPEG, and a background carries no card). The crop starts as the largest one at the
// centre; the author zooms in (a slider labelled data-crop-zoom, the mouse wheel, a pinch) and
// moves it (a slider labelled data-crop-move along the picture's long side, one labelled
// data-crop-across the other way once zoomed, or dragging the preview), so a face at the top of
// a tall picture is kept. What is uploaded is exactly the crop shown. The server never decodes
// pictures; the browser's canvas does it here.
(function () {
  const MAX_HEIGHT = 768;
  const MAX_WIDTH = 1280;
  const MAX_ZOOM = 4;
  const WHEEL_STEP = 0.0015;  // zoom factor per wheel delta pixel
  const SETTLE_MS = 400;  // a wheel or pinch at rest this long uploads the crop

  document.querySelectorAll("input[type=file][data-crop-ratio]").forEach((input) => {
    const box = input.closest(".avatar-pick") || input.parentElement;
    const preview = box.querySelector("[data-role=avatar-preview]");
    const now = box.querySelector("[data-role=avatar-now]");
    const ratio = Number(input.dataset.cropRatio) || 2 / 3;
    const type = input.dataset.cropType || "image/png";
    let picked = null;  // {image, name, width, height}: the picture and its largest crop
    let zoom = 1;  // 1: the largest crop; MAX_ZOOM: a quarter of its width
    let offset = {x: 0.5, y: 0.5};  // where the crop sits in the room left on each axis
    let controls = null;
    let settling = 0;
    let dirty = false;  // the crop shown is not yet the file in the input
    let uploading = null;

    // The crop in the picture's pixels: {x, y, width, height}.
    function rectangle() {
      const {image} = picked;
      const width = picked.width / zoom;
      const height = picked.height / zoom;
      return {x: (image.width - width) * offset.x, y: (image.height - height) * offset.y, width, height};
    }

    // The long side's axis: the one with room to move at the largest crop.
    function along() {
      return picked.image.width > picked.width ? "x" : "y";
    }

    function draw(canvas) {
      const crop = rectangle();
      const scale = Math.min(1, MAX_HEIGHT / crop.height, MAX_WIDTH / crop.width);
      canvas.width = Math.max(1, Math.round(crop.width * scale));
      canvas.height = Math.max(1, Math.round(crop.height * scale));
      canvas.getContext("2d").drawImage(picked.image, crop.x, crop.y, crop.width, crop.height,
        0, 0, canvas.width, canvas.height);
    }

    function upload() {
      clearTimeout(settling);
      dirty = false;
      uploading = uploadNow().finally(() => { uploading = null; });
      return uploading;
    }

    async function uploadNow() {
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

    function uploadSoon() {
      clearTimeout(settling);
      settling = setTimeout(upload, SETTLE_MS);
    }

    function slider(text, role, min, max, value, step = 1) {
      const label = document.createElement("label");
      label.className = "crop-move";
      label.textContent = text + " ";
      const range = document.createElement("input");
      Object.assign(range, {type: "range", min: String(min), max: String(max), step: String(step),
                            value: String(value)});
      range.dataset.role = role;
      label.append(range);
      return label;
    }

    // The sliders show the crop's state; redrawn after every change, whatever made it.
    function show() {
      const main = along();
      const other = main === "x" ? "y" : "x";
      controls.zoom.querySelector("input").value = String(Math.round(zoom * 100));
      controls.move.querySelector("input").value = String(Math.round(offset[main] * 100));
      controls.across.querySelector("input").value = String(Math.round(offset[other] * 100));
      const {image} = picked;
      controls.move.hidden = picked.width >= image.width && picked.height >= image.height && zoom === 1;
      controls.across.hidden = zoom === 1;
      draw(preview);
      dirty = true;
    }

    function zoomTo(value) {
      zoom = Math.min(MAX_ZOOM, Math.max(1, value));
      show();
    }

    function controlsMake() {
      if (!input.dataset.cropMove || !preview) return null;
      const made = {
        zoom: slider(input.dataset.cropZoom || "Zoom", "crop-zoom", 100, MAX_ZOOM * 100, 100, 5),
        move: slider(input.dataset.cropMove, "crop-move", 0, 100, 50),
        across: slider(input.dataset.cropAcross || input.dataset.cropMove, "crop-across", 0, 100, 50),
      };
      (input.closest("label") || input).after(made.zoom, made.move, made.across);
      made.zoom.querySelector("input").addEventListener("input", (event) => zoomTo(event.target.value / 100));
      made.move.querySelector("input").addEventListener("input", (event) => {
        offset[along()] = event.target.value / 100;
        show();
      });
      made.across.querySelector("input").addEventListener("input", (event) => {
        offset[along() === "x" ? "y" : "x"] = event.target.value / 100;
        show();
      });
      for (const label of Object.values(made)) label.querySelector("input").addEventListener("change", upload);
      gesturesListen();
      return made;
    }

    // Dragging the preview moves the crop, the picture following the finger; two fingers
    // pinch to zoom; the mouse wheel zooms too.
    function gesturesListen() {
      const pointers = new Map();
      let start = null;
      function begin() {
        const [first, second] = [...pointers.values()];
        start = {x: first.x, y: first.y, offset: {...offset}, zoom,
                 spread: second ? Math.hypot(second.x - first.x, second.y - first.y) : 0};
      }
      preview.addEventListener("pointerdown", (event) => {
        if (!picked) return;
        preview.setPointerCapture(event.pointerId);
        pointers.set(event.pointerId, {x: event.clientX, y: event.clientY});
        begin();
      });
      preview.addEventListener("pointermove", (event) => {
        if (!start || !pointers.has(event.pointerId)) return;
        pointers.set(event.pointerId, {x: event.clientX, y: event.clientY});
        const [first, second] = [...pointers.values()];
        if (second && start.spread) {
          zoomTo(start.zoom * Math.hypot(second.x - first.x, second.y - first.y) / start.spread);
          return;
        }
        const crop = rectangle();
        const frame = preview.getBoundingClientRect();
        const roomX = picked.image.width - crop.width;
        const roomY = picked.image.height - crop.height;
        if (roomX > 0) {
          const moved = (first.x - start.x) / frame.width * crop.width;
          offset.x = Math.min(1, Math.max(0, start.offset.x - moved / roomX));
        }
        if (roomY > 0) {
          const moved = (first.y - start.y) / frame.height * crop.height;
          offset.y = Math.min(1, Math.max(0, start.offset.y - moved / roomY));
        }
        show();
      });
      const lift = (event) => {
        if (!pointers.delete(event.pointerId)) return;
        if (pointers.size) { begin(); return; }
        start = null;
        upload();
      };
      preview.addEventListener("pointerup", lift);
      preview.addEventListener("pointercancel", lift);
      preview.addEventListener("wheel", (event) => {
        if (!picked) return;
        event.preventDefault();  // the page stays still while the picture zooms
        zoomTo(zoom * Math.exp(-event.deltaY * WHEEL_STEP));
        uploadSoon();
      }, {passive: false});
    }

    // A save right after a wheel or a drag waits for the crop shown to be the file sent.
    if (input.form) {
      input.form.addEventListener("submit", async (event) => {
        if (!dirty && !uploading) return;
        event.preventDefault();
        while (dirty || uploading) await (uploading || upload());
        input.form.requestSubmit(event.submitter);
      });
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
        zoom = 1;
        offset = {x: 0.5, y: 0.5};
        controls = controls || controlsMake();
        if (controls) {
          show();
          preview.style.touchAction = "none";
          preview.style.cursor = "grab";
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
