/* Draw every figure of the page from its json_script data; the data were built (and escaped) by the server. */
(function () {
  "use strict";
  function draw() {
    if (typeof Plotly === "undefined") { return; }
    document.querySelectorAll("[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.getAttribute("data-figure"));
      if (!source) { return; }
      var figure = JSON.parse(source.textContent);
      Plotly.newPlot(el, figure.data, figure.layout, {
        responsive: true, displaylogo: false,
        modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
        toImageButtonOptions: {format: "svg"}
      });
    });
  }
  function autosubmit() {
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { autosubmit(); draw(); });
})();
