// A picture picked for a character, persona or background is cropped in the browser to the
// card's ratio (data-crop-ratio: width / height, 2:3 for character cards, 16:9 for a
// background) around its centre, shown, and uploaded as that PNG (or data-crop-type: a wide
// photo is far smaller as a JPEG, and a background carries no card). The server never decodes
// pictures; the browser's canvas does it here.
(function () {
  const MAX_HEIGHT = 768;
  const MAX_WIDTH = 1280;
  document.querySelectorAll("input[type=file][data-crop-ratio]").forEach((input) => {
    const box = input.closest(".avatar-pick") || input.parentElement;
    const preview = box.querySelector("[data-role=avatar-preview]");
    const now = box.querySelector("[data-role=avatar-now]");
    let busy = false;
    input.addEventListener("change", async () => {
      const file = input.files[0];
      if (busy || !file || !file.type.startsWith("image/") || file.type === "image/gif") return;
      busy = true;
      try {
        const image = await createImageBitmap(file);
        const ratio = Number(input.dataset.cropRatio) || 2 / 3;
        let width = image.width;
        let height = Math.round(width / ratio);
        if (height > image.height) { height = image.height; width = Math.round(height * ratio); }
        const scale = Math.min(1, MAX_HEIGHT / height, MAX_WIDTH / width);
        const canvas = preview || document.createElement("canvas");
        canvas.width = Math.round(width * scale);
        canvas.height = Math.round(height * scale);
        canvas.getContext("2d").drawImage(image, (image.width - width) / 2,
          (image.height - height) / 2, width, height, 0, 0, canvas.width, canvas.height);
        const type = input.dataset.cropType || "image/png";
        const blob = await new Promise((done) => canvas.toBlob(done, type, 0.88));
        if (!blob) return;
        const cropped = new DataTransfer();
        const extension = type === "image/jpeg" ? ".jpg" : ".png";
        cropped.items.add(new File([blob], file.name.replace(/\.[^.]*$/, "") + extension,
          {type}));
        input.files = cropped.files;
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
