// The prompt inspector's bar: each section as wide as its share of the budget. Set through the
// CSSOM because the Content-Security-Policy refuses style attributes in the page.
for (const part of document.querySelectorAll("#section-bar [data-share]")) {
  part.style.width = `${Number(part.dataset.share) || 0}%`;
}
