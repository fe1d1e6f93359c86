// A sort link opens the table sorted, at the link's own id: give that link the
// focus, so a keyboard visitor who sorted stays on the header, not the page's top.
document.addEventListener("DOMContentLoaded", () => {
  const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target && target.matches("table.results th a")) {
    target.focus({ preventScroll: true });
  }
});
