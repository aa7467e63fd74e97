// furo wraps tables and display maths in containers that scroll sideways when they are wider
// than the page. A scrolling region must be reachable from the keyboard (WCAG 2.1.1; axe's
// "scrollable-region-focusable"), so give each one that overflows a tab stop and a name.
(function () {
  function label(wrapper) {
    var caption = wrapper.querySelector("caption");
    if (caption) return caption.textContent.trim();
    return wrapper.classList.contains("math-wrapper") ? "Equation" : "Table";
  }
  function mark() {
    document.querySelectorAll(".table-wrapper, .math-wrapper").forEach(function (wrapper) {
      if (wrapper.scrollWidth > wrapper.clientWidth) {
        wrapper.setAttribute("tabindex", "0");
        wrapper.setAttribute("role", "region");
        wrapper.setAttribute("aria-label", label(wrapper));
      } else if (wrapper.getAttribute("role") === "region") {
        wrapper.removeAttribute("tabindex");
        wrapper.removeAttribute("role");
        wrapper.removeAttribute("aria-label");
      }
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mark);
  } else {
    mark();
  }
  window.addEventListener("resize", mark);
})();
