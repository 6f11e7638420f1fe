/* Campaign pages: polls that pause while the tab is hidden and back off when the server is unreachable.
   htmx does the polling (hx-trigger="every Ns"); this file only decides whether a poll may go out.
   No eval: the page's CSP forbids it, so htmx trigger filters are not used. */
(function () {
  "use strict";
  var MAX_BACKOFF_MS = 120000;

  function isPoll(elt) {
    return elt && elt.hasAttribute && elt.hasAttribute("data-poll");
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (!isPoll(elt)) return;
    var waitUntil = Number(elt.getAttribute("data-backoff-until") || 0);
    if (document.visibilityState !== "visible" || Date.now() < waitUntil) {
      event.preventDefault();
    }
  });

  function backOff(event) {
    var elt = event.detail.elt;
    if (!isPoll(elt)) return;
    var previous = Number(elt.getAttribute("data-backoff-ms") || 0);
    var next = Math.min(MAX_BACKOFF_MS, previous ? previous * 2 : 10000);
    elt.setAttribute("data-backoff-ms", String(next));
    elt.setAttribute("data-backoff-until", String(Date.now() + next));
    elt.classList.add("poll-trouble");
  }
  document.addEventListener("htmx:sendError", backOff);
  document.addEventListener("htmx:responseError", backOff);
  document.addEventListener("htmx:timeout", backOff);

  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (!isPoll(elt) || !event.detail.successful) return;
    elt.removeAttribute("data-backoff-ms");
    elt.removeAttribute("data-backoff-until");
    elt.classList.remove("poll-trouble");
  });

  /* Coming back to the tab: ask at once instead of waiting for the next tick. */
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible" || !window.htmx) return;
    document.querySelectorAll("[data-poll]").forEach(function (elt) {
      window.htmx.trigger(elt, "poll-now");
    });
  });

  /* The campaign page's poll refreshes as many volume rows as the page shows: "Load more" widens it. */
  document.addEventListener("htmx:afterSettle", function () {
    var shown = document.getElementById("volume-shown");
    if (!shown) return;
    var rows = document.querySelectorAll("#volume-rows tr.vol").length;
    if (rows > Number(shown.value || 0)) shown.value = String(rows);
  });

  if (window.htmx) {
    window.htmx.config.timeout = 15000;
  }
})();
