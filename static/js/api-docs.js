/* Swagger UI draws its headings one level too deep (its page title is an h1, the
   operation groups h3) and leaves the server menu without a name. It re-renders
   as readers expand operations, so the fix is re-applied on every change. */
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  if (!root) return;
  function mend() {
    root.querySelectorAll(".opblock-tag, section.models > h4").forEach(function (heading) {
      if (heading.getAttribute("aria-level") !== "2") {
        heading.setAttribute("role", "heading");
        heading.setAttribute("aria-level", "2");
      }
    });
    var servers = root.querySelector("#servers");
    if (servers && !servers.hasAttribute("aria-label")) servers.setAttribute("aria-label", "Server");
  }
  new MutationObserver(mend).observe(root, { childList: true, subtree: true });
  mend();
})();
