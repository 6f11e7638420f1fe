// Run log viewer: open at the right line, follow the bottom while live, keep the place when
// earlier lines arrive, jump between errors, and back off when polling fails. No inline code.
(function () {
  "use strict";
  var view = document.getElementById("log-view");
  if (!view) return;
  var MAX_FAILURES = 5;
  var networkFailures = 0;
  var followBottom = false;
  var keepFromBottom = null;

  function atBottom() {
    return view.scrollHeight - view.scrollTop - view.clientHeight < 40;
  }

  // Where an element is, in pixels below the top of the visible part of the log.
  function fromViewTop(el) {
    return el.getBoundingClientRect().top - view.getBoundingClientRect().top;
  }

  function scrollToLine(target) {
    var line = target && target.closest(".log-line");
    if (!line) return;
    if (line.classList.contains("kind-http")) {
      var stretch = line.closest(".log-stretch");
      var fold = stretch && stretch.querySelector(":scope > details.http-fold");
      if (fold && !fold.open) fold.open = true;
    }
    view.scrollTop += fromViewTop(line) - view.clientHeight / 3;
    document.querySelectorAll(".log-line.is-target").forEach(function (el) { el.classList.remove("is-target"); });
    line.classList.add("is-target");
  }

  function openAtTheRightPlace() {
    var match = /^#L(\d+)$/.exec(window.location.hash);
    if (match) {
      var wanted = document.getElementById("L" + match[1]);
      if (wanted) { scrollToLine(wanted); return; }
      if (!view.dataset.deepLine && view.dataset.lineUrl) {
        // The line is outside the part read so far: ask the server for the part around it.
        window.location.replace(view.dataset.lineUrl + "&line=" + match[1] + "#L" + match[1]);
        return;
      }
    }
    var offset = /^#at(\d+)$/.exec(window.location.hash);
    if (offset) {
      var spot = document.getElementById("at" + offset[1]);
      if (spot) { scrollToLine(spot); return; }
      if (!view.dataset.deepLine && view.dataset.lineUrl) {
        // A line of a log too large to number, outside the part read so far: ask for the part around it.
        window.location.replace(view.dataset.lineUrl + "&at=" + offset[1] + "#at" + offset[1]);
        return;
      }
    }
    var focus = view.dataset.focus ? document.getElementById(view.dataset.focus) : null;
    if (focus && view.dataset.deepLine) {
      scrollToLine(focus); // the line a byte-position link names, which the server found and numbered
      return;
    }
    if (focus && focus.classList.contains("kind-failed")) {
      var group = focus.closest(".log-group");
      var previousError = group && group.previousElementSibling;
      scrollToLine(focus);
      if (previousError && previousError.classList.contains("group-error")) {
        view.scrollTop = Math.min(view.scrollTop, view.scrollTop + fromViewTop(previousError) - 20);
      }
      return;
    }
    view.scrollTop = view.scrollHeight;
  }

  function errors() {
    return Array.prototype.slice.call(view.querySelectorAll(".log-error"));
  }

  function jumpError(step) {
    var list = errors();
    if (!list.length) return;
    var middle = view.clientHeight / 3;
    var index;
    if (step > 0) {
      index = list.findIndex(function (el) { return fromViewTop(el) > middle + 2; });
      if (index < 0) index = 0;
    } else {
      index = -1;
      list.forEach(function (el, i) { if (fromViewTop(el) < middle - 2) index = i; });
      if (index < 0) index = list.length - 1;
    }
    var line = list[index];
    scrollToLine(line);
    var link = line.querySelector(".ln");
    if (link) link.focus({ preventScroll: true });
  }

  function updateErrorCount() {
    var count = document.getElementById("log-error-count");
    var list = errors();
    var n = list.length;
    if (count) {
      count.textContent = "";
      if (n === 0) {
        count.textContent = "No errors in the lines shown";
      } else {
        var first = list[0];
        var link = document.createElement("a");
        var number = lineNumber(first);
        link.href = "#" + first.id;
        link.textContent = number ? "line " + number : "byte " + first.id.replace(/^at/, "");
        count.append(n + " error" + (n === 1 ? "" : "s") + " · " + (n > 1 ? "first at " : ""), link);
      }
    }
    document.querySelectorAll(".needs-errors").forEach(function (button) { button.hidden = n === 0; });
  }

  // --- HTTP requests: within a stretch of ordinary lines they hide behind one "N HTTP requests" row,
  // placed where the first of them is, and show in place when it is opened. The server folds each
  // stretch it sends; a stretch split between two answers (live lines, earlier lines) is joined here.
  var lines = document.getElementById("log-lines");

  function lineNumber(line) {
    var match = /^L(\d+)$/.exec(line.id);
    return match ? Number(match[1]) : null;
  }

  function newFold() {
    var fold = document.createElement("details");
    fold.className = "http-fold";
    var summary = document.createElement("summary");
    summary.className = "http-summary";
    var label = document.createElement("span");
    label.className = "http-label";
    summary.appendChild(label);
    fold.appendChild(summary);
    return fold;
  }

  // Put a stretch's fold row before its first HTTP request line, with the count and the lines it spans.
  function refold(stretch, open) {
    var requests = stretch.querySelectorAll(".kind-http");
    var fold = stretch.querySelector(":scope > details.http-fold");
    if (requests.length < 2) {
      if (fold) fold.remove();
      return;
    }
    if (!fold) fold = newFold();
    fold.open = open || fold.open;
    stretch.insertBefore(fold, requests[0].closest(".log-group"));
    var first = lineNumber(requests[0]);
    var last = lineNumber(requests[requests.length - 1]);
    fold.querySelector(".http-label").textContent = requests.length + " HTTP requests" +
      (first && last ? " · lines " + first + "–" + last : "");
  }

  function joinStretches() {
    var part = lines.firstElementChild;
    while (part) {
      var next = part.nextElementSibling;
      if (next && part.classList.contains("log-stretch") && next.classList.contains("log-stretch")) {
        var nextFold = next.querySelector(":scope > details.http-fold");
        var open = Boolean(nextFold && nextFold.open);
        if (nextFold) nextFold.remove();
        while (next.firstChild) part.appendChild(next.firstChild);
        next.remove();
        refold(part, open);
      } else {
        part = next;
      }
    }
  }

  var httpToggle = document.getElementById("toggle-http");
  function offerHttpToggle() {
    httpToggle.hidden = !lines.querySelector("details.http-fold");
  }
  httpToggle.addEventListener("click", function () {
    var open = httpToggle.getAttribute("aria-pressed") !== "true";
    httpToggle.setAttribute("aria-pressed", String(open));
    httpToggle.textContent = open ? "Hide HTTP requests" : "Show HTTP requests";
    lines.querySelectorAll("details.http-fold").forEach(function (fold) { fold.open = open; });
  });

  // --- numbers for a log too large to count when it opened ------------------------------------
  // Once "show earlier" has reached line 1, every line on the page can be counted from it. A line
  // keeps its byte-position anchor (#at…) so links made before still reach it.
  function numberFromStart() {
    var rows = lines.querySelectorAll(".log-line");
    if (!rows.length || lineNumber(rows[0]) !== 1 || !lines.querySelector(".log-line[id^='at']")) return;
    var number = 0;
    rows.forEach(function (row) {
      number += 1;
      if (lineNumber(row) !== null) return;
      var keep = document.createElement("span");
      keep.id = row.id;
      keep.className = "old-anchor";
      row.prepend(keep);
      row.id = "L" + number;
      var link = row.querySelector(".ln");
      link.textContent = String(number);
      link.setAttribute("href", "#L" + number);
      link.setAttribute("aria-label", "Line " + number);
    });
    lines.querySelectorAll(".log-stretch").forEach(function (stretch) { refold(stretch, false); });
    var banner = document.getElementById("log-unnumbered");
    if (banner) banner.hidden = true;
  }

  document.querySelectorAll(".js-only").forEach(function (el) { el.hidden = false; });
  offerHttpToggle();
  document.getElementById("next-error").addEventListener("click", function () { jumpError(1); });
  document.getElementById("prev-error").addEventListener("click", function () { jumpError(-1); });
  window.addEventListener("hashchange", function () {
    var match = /^#(L\d+|at\d+)$/.exec(window.location.hash);
    if (match) scrollToLine(document.getElementById(match[1]));
  });

  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var source = event.detail.elt;
    if (source.id === "log-live") followBottom = atBottom();
    if (source.closest && source.closest("#log-earlier")) keepFromBottom = view.scrollHeight - view.scrollTop;
  });
  document.body.addEventListener("htmx:afterSettle", function () {
    joinStretches();
    numberFromStart();
    offerHttpToggle();
    if (httpToggle.getAttribute("aria-pressed") === "true") {
      lines.querySelectorAll("details.http-fold").forEach(function (fold) { fold.open = true; });
    }
    if (keepFromBottom !== null) {
      view.scrollTop = view.scrollHeight - keepFromBottom;
      keepFromBottom = null;
    }
    if (followBottom) {
      view.scrollTop = view.scrollHeight;
      followBottom = false;
    }
    updateErrorCount();
  });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.elt.id === "log-live" && event.detail.successful) networkFailures = 0;
  });

  function pollFailed(event) {
    var poller = event.detail.elt;
    if (poller.id !== "log-live") return;
    networkFailures += 1;
    var replacement = document.createElement("div");
    replacement.id = "log-live";
    replacement.className = "log-live";
    var note = document.createElement("p");
    note.className = "banner warn";
    note.setAttribute("role", "status");
    if (networkFailures >= MAX_FAILURES) {
      note.textContent = "Stopped following the log: this site did not answer " + networkFailures +
        " times in a row. Reload the page to try again.";
      document.getElementById("log-status").textContent = "stopped";
    } else {
      var seconds = Math.min(3 * Math.pow(2, networkFailures), 60);
      note.textContent = "Could not reach this site for new lines; trying again in " + seconds + " s.";
      replacement.setAttribute("hx-get", poller.getAttribute("hx-get"));
      replacement.setAttribute("hx-trigger", "every " + seconds + "s");
      replacement.setAttribute("hx-swap", "outerHTML");
    }
    replacement.appendChild(note);
    poller.replaceWith(replacement);
    if (window.htmx && replacement.hasAttribute("hx-get")) window.htmx.process(replacement);
  }
  document.body.addEventListener("htmx:sendError", pollFailed);
  document.body.addEventListener("htmx:responseError", pollFailed);

  updateErrorCount();
  openAtTheRightPlace();
})();
