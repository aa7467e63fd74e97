// The blog sidebar (kb.pages.sidebars): every page holds the sidebar's outline, each
// section's heading and "All …" link; the lists themselves (recent posts, categories, series,
// top tags, years, with counts) are one file that every page shares, named by the holder's
// data-kb-sidebar, with links from the site's root. This script puts them in place, each link
// made relative to the page with data-kb-root, as the build would have written it. So a new
// post changes that one file instead of every page. Without scripts, or opened from files,
// the outline stays: every list is one click away. data-kb-filled says when it is done
// ("" filled, "failed" left as it was).
(function () {
  "use strict";
  var ABSOLUTE = /^([a-z][a-z0-9+.-]*:|\/|#)/i;

  function relocate(element, attribute, root) {
    var value = element.getAttribute(attribute);
    if (value !== null && !ABSOLUTE.test(value)) {
      element.setAttribute(attribute, root + value);
    }
  }

  function fill(holder) {
    var root = holder.getAttribute("data-kb-root") || "";
    // Asked of the server each time (a 304 when unchanged): after a new post the lists are
    // the new ones, even where the browser would otherwise keep a copy for a while.
    fetch(holder.getAttribute("data-kb-sidebar"), { cache: "no-cache" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.json();
      })
      .then(function (data) {
        var template = document.createElement("template");
        template.innerHTML = data.html;
        Array.prototype.forEach.call(template.content.querySelectorAll("[href]"), function (a) {
          relocate(a, "href", root);
        });
        Array.prototype.forEach.call(template.content.querySelectorAll("[src]"), function (e) {
          relocate(e, "src", root);
        });
        holder.replaceChildren(template.content);
        holder.setAttribute("data-kb-filled", "");
      })
      .catch(function () {
        holder.setAttribute("data-kb-filled", "failed");
      });
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-kb-sidebar]"), fill);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
