// The benchmarks page (kb.pages.benchmarks): filter the table of datasets by GPU, data type
// and metric. Each row lists its values in data-gpu, data-dtype and data-metric, separated
// by "|"; a row is shown when every filter is "All" or one of its values. Without this
// script the filters stay hidden and the page is the whole table.
(function () {
  "use strict";
  function start() {
    var form = document.querySelector(".kb-benchmarks-filters");
    var table = document.querySelector(".kb-benchmarks-table");
    var status = document.querySelector(".kb-benchmarks-status");
    if (!form || !table) {
      return;
    }
    var selects = Array.prototype.slice.call(form.querySelectorAll("select[data-filter]"));
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);

    function matches(row, select) {
      if (!select.value) {
        return true;
      }
      var values = (row.getAttribute("data-" + select.getAttribute("data-filter")) || "").split("|");
      return values.indexOf(select.value) >= 0;
    }

    function apply() {
      var shown = 0;
      rows.forEach(function (row) {
        var visible = selects.every(function (select) {
          return matches(row, select);
        });
        row.hidden = !visible;
        if (visible) {
          shown += 1;
        }
      });
      var filtered = selects.some(function (select) {
        return select.value;
      });
      if (status) {
        status.textContent = filtered
          ? "Showing " + shown + " of " + rows.length + " datasets."
          : "";
      }
    }

    selects.forEach(function (select) {
      select.addEventListener("change", apply);
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
    });
    form.hidden = false;
    apply();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
