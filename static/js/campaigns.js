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
    /* A poll that carries its own words for this (data-trouble) says them, once, where it stands. */
    var words = elt.getAttribute("data-trouble");
    if (words && !elt.parentNode.querySelector(".poll-trouble-note")) {
      var note = document.createElement("p");
      note.className = "banner warn poll-trouble-note";
      note.setAttribute("role", "status");
      note.textContent = words;
      elt.parentNode.insertBefore(note, elt);
    }
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

  /* The site answered again: its words go (before the swap, while the poll is still in the page). */
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (!isPoll(event.detail.elt) || event.detail.xhr.status >= 400) return;
    var note = event.detail.elt.parentNode && event.detail.elt.parentNode.querySelector(".poll-trouble-note");
    if (note) note.remove();
  });

  /* Coming back to the tab: ask at once instead of waiting for the next tick. */
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible" || !window.htmx) return;
    document.querySelectorAll("[data-poll]").forEach(function (elt) {
      window.htmx.trigger(elt, "poll-now");
    });
  });

  /* The campaign page's poll refreshes as many volume rows as the page shows: "Load more" widens that
     window as soon as it is asked, and an answer for a narrower window (a poll sent before it) is not
     swapped in, so rows just loaded never disappear. */
  var VOLUME_PAGE = 200;
  function shownRows() { return document.getElementById("volume-shown"); }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var shown = shownRows();
    if (!shown || !event.detail.elt || event.detail.elt.id !== "volume-rows-more") return;
    var rows = document.querySelectorAll("#volume-rows tr.vol").length;
    shown.value = String(Math.max(Number(shown.value || 0), rows + VOLUME_PAGE));
  });
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var shown = shownRows();
    var incoming = event.detail.fragment && event.detail.fragment.firstElementChild;
    if (!shown || !incoming || incoming.id !== "volume-rows") return;
    if (Number(incoming.getAttribute("data-window") || 0) < Number(shown.value || 0)) {
      event.detail.shouldSwap = false;
    }
  });

  /* A link to a part of a closed <details> (the warm-up chip to the model cache under Operator details)
     opens it first, so the browser lands on the part itself; without script it lands on the summary. */
  function openAround(hash) {
    var id = "";
    try { id = decodeURIComponent(hash || ""); } catch (e) { return; }  /* a malformed address opens nothing */
    var target = id && document.getElementById(id);
    var details = target && target.closest("details");
    if (details && !details.open) details.open = true;
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href^='#']");
    if (link) openAround(link.getAttribute("href").slice(1));
  });
  window.addEventListener("hashchange", function () { openAround(location.hash.slice(1)); });
  openAround(location.hash.slice(1));

  if (window.htmx) {
    window.htmx.config.timeout = 15000;
  }
})();
