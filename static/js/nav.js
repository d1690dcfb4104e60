/* The site menu on a narrow screen: the Menu button shows and hides it (wide screens always show it). */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("menu-toggle");
    var bar = document.querySelector(".topbar");
    if (!button || !bar) { return; }
    button.addEventListener("click", function () {
      var open = bar.classList.toggle("open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });
})();
