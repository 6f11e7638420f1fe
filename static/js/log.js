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

  function scrollToLine(line) {
    if (!line) return;
    var target = line.closest("details");
    if (target && !target.open) target.open = true;
    if (line.classList.contains("kind-http")) document.getElementById("show-http").checked = true;
    view.scrollTop = line.offsetTop - view.offsetTop - view.clientHeight / 3;
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
        window.location.replace(view.dataset.lineUrl + "&before=" + (Number(offset[1]) + 65536) + "#at" + offset[1]);
        return;
      }
    }
    var focus = view.dataset.focus ? document.getElementById(view.dataset.focus) : null;
    if (focus && focus.classList.contains("kind-failed")) {
      var group = focus.closest(".log-group");
      var previousError = group && group.previousElementSibling;
      scrollToLine(focus);
      if (previousError && previousError.classList.contains("group-error")) {
        view.scrollTop = Math.min(view.scrollTop, previousError.offsetTop - view.offsetTop - 20);
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
    var middle = view.scrollTop + view.offsetTop + view.clientHeight / 3;
    var index;
    if (step > 0) {
      index = list.findIndex(function (el) { return el.offsetTop > middle + 2; });
      if (index < 0) index = 0;
    } else {
      index = -1;
      list.forEach(function (el, i) { if (el.offsetTop < middle - 2) index = i; });
      if (index < 0) index = list.length - 1;
    }
    var line = list[index];
    scrollToLine(line);
    var link = line.querySelector(".ln");
    if (link) link.focus({ preventScroll: true });
  }

  function updateErrorCount() {
    var count = document.getElementById("log-error-count");
    var n = errors().length;
    if (count) count.textContent = n + " error line" + (n === 1 ? "" : "s") + " shown";
  }

  document.querySelectorAll(".js-only").forEach(function (el) { el.hidden = false; });
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

  openAtTheRightPlace();
})();
