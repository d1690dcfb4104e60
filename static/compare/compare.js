/* Draw every figure of the page from its json_script data; the data were built (and escaped) by the server. */
(function () {
  "use strict";
  function draw() {
    if (typeof Plotly === "undefined") { return; }
    document.querySelectorAll("[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.getAttribute("data-figure"));
      if (!source) { return; }
      var figure = JSON.parse(source.textContent);
      if (el.clientWidth < 560) { narrow(figure); }
      Plotly.newPlot(el, figure.data, figure.layout, {
        responsive: true, displaylogo: false,
        modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
        toImageButtonOptions: {format: "svg"}
      });
    });
  }
  /* A phone: the figure's own `narrow` changes first (a panel's layout for a small screen, the traces'
     changes by position), then smaller text and margins, so that axis titles and labels fit its width. */
  function narrow(figure) {
    var changes = figure.narrow || {};
    var layout = Object.assign(figure.layout, changes.layout || {});
    (changes.data || []).forEach(function (change, i) { Object.assign(figure.data[i] || {}, change); });
    var rows = {};
    var lines = 1;
    figure.data.forEach(function (trace) {
      if (trace.orientation === "h") {
        (trace.y || []).forEach(function (y) {
          rows[(trace.yaxis || "y") + "\u0000" + y] = true;  /* a row of each y axis: stacked panels add up */
          lines = Math.max(lines, String(y).split("<br>").length);
        });
      }
    });
    var count = Object.keys(rows).length;
    /* a row is as tall as its wrapped label (10 px text, 13 px a line), so that neighbours never overlap */
    if (count) { layout.height = Math.max(layout.height || 0, 200 + Math.max(64, 13 * lines + 10) * count); }
    if (layout.showlegend !== false) {
      /* the legend stays above the plot, in rows; the chart grows so that it never needs a scrollbar */
      layout.legend = Object.assign({}, layout.legend || {}, {font: {size: 10}});
      layout.height = (layout.height || 400) + 120;
    }
    /* a heatmap's words do not fit its narrow cells: each cell keeps its icon (its words stay in the hover
       and the table beside the chart) and the column names stand upright so that they do not overlap */
    figure.data.forEach(function (trace) {
      if (trace.type !== "heatmap" || !Array.isArray(trace.text)) { return; }
      trace.customdata = trace.text;
      trace.text = trace.text.map(function (row) {
        return row.map(function (cell) { return String(cell).split(" ")[0]; });
      });
      trace.hovertemplate = String(trace.hovertemplate || "").split("%{text}").join("%{customdata}");
      var axis = layout[(trace.xaxis || "x").replace("x", "xaxis")] || (layout.xaxis = {});
      axis.tickangle = -90;
    });
    layout.font = Object.assign({}, layout.font || {}, {size: 11});
    layout.margin = Object.assign({}, layout.margin || {}, {l: 4, r: 12});
    Object.keys(layout).forEach(function (key) {
      var axis = layout[key];
      if (/^[xy]axis/.test(key) && axis && axis.title) {
        axis.title.font = Object.assign({}, axis.title.font || {}, {size: 11});
      }
      if (/^[xy]axis/.test(key) && axis && axis.type === "category") {
        axis.tickfont = Object.assign({}, axis.tickfont || {}, {size: 10});
      }
    });
  }
  function autosubmit() {
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { autosubmit(); draw(); });
})();
