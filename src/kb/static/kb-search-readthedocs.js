// Read the Docs: furo's sidebar search box opens Read the Docs' server-side search.
// Only once Read the Docs' add-ons have loaded (they announce it with this event): offline,
// or anywhere else, the box keeps sending queries to the site's own search page.
document.addEventListener("readthedocs-addons-data-ready", () => {
  for (const box of document.querySelectorAll(".sidebar-search")) {
    box.addEventListener("focusin", () => {
      document.dispatchEvent(new CustomEvent("readthedocs-search-show"));
    });
  }
});
