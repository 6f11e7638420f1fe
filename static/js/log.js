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
    setRover(line.querySelector(".ln"));
  }

  // --- one tab stop for the log body: the current line's number; arrow keys move it ------------
  var rover = null;

  function setRover(el) {
    if (!el || el === rover) return;
    if (rover) rover.setAttribute("tabindex", "-1");
    rover = el;
    rover.setAttribute("tabindex", "0");
  }

  function stops() {
    return Array.prototype.filter.call(view.querySelectorAll(".log-line > .ln, .http-fold > summary"), function (el) {
      return el.offsetParent !== null;
    });
  }

  function moveRover(event) {
    var all = stops();
    var at = all.indexOf(event.target);
    if (at < 0) return;
    var page = Math.max(1, Math.floor(view.clientHeight / 20));
    var next = { ArrowDown: at + 1, ArrowUp: at - 1, PageDown: at + page, PageUp: at - page, Home: 0, End: all.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    var el = all[Math.max(0, Math.min(all.length - 1, next))];
    setRover(el);
    el.focus({ preventScroll: true });
    var box = el.getBoundingClientRect();
    var viewBox = view.getBoundingClientRect();
    if (box.top < viewBox.top + 4) view.scrollTop -= viewBox.top + 4 - box.top;
    else if (box.bottom > viewBox.bottom - 4) view.scrollTop += box.bottom - (viewBox.bottom - 4);
  }
  view.addEventListener("keydown", moveRover);
  view.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches(".log-line > .ln, .http-fold > summary")) setRover(event.target);
  });
  view.addEventListener("click", function (event) {
    var line = event.target.closest && event.target.closest(".log-line");
    if (line) setRover(line.querySelector(".ln"));
  });
  // Summaries of HTTP folds are reached with the arrow keys like the lines, not with Tab.
  function tameFolds() {
    view.querySelectorAll(".http-fold > summary").forEach(function (summary) {
      if (summary !== rover) summary.setAttribute("tabindex", "-1");
    });
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

  // --- errors: Next and Previous walk them in order and wrap; focus stays on the button ----------
  var currentError = null; // the error line last jumped to
  var errorStatus = document.getElementById("error-status");

  function lineLabel(line) {
    var number = lineNumber(line);
    return number ? "line " + number : "byte " + line.id.replace(/^at/, "");
  }

  function jumpError(step) {
    var list = errors();
    if (!list.length) return;
    var index = currentError ? list.indexOf(currentError) : -1;
    if (index < 0) index = step > 0 ? -1 : list.length;
    index = (index + step + list.length) % list.length;
    currentError = list[index];
    scrollToLine(currentError);
    setRover(currentError.querySelector(".ln"));
    errorStatus.textContent = "Error " + (index + 1) + " of " + list.length + ", " + lineLabel(currentError);
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

  // --- find in the whole log: the server counts every match; loaded lines show them marked -------
  var findForm = document.getElementById("log-find-form");
  var findInput = document.getElementById("log-q");
  var findStatus = document.getElementById("find-status");
  var found = { query: "", matches: [], count: 0, index: -1 };

  function escapeRegExp(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  function unmark(root) {
    root.querySelectorAll("mark.find-hit").forEach(function (mark) {
      var parent = mark.parentNode;
      parent.replaceChild(document.createTextNode(mark.textContent), mark);
      parent.normalize();
    });
  }

  // Mark the query in the text of the given lines (only the log text, never the line numbers).
  function markLines(rows, query) {
    if (!query) return;
    var pattern = new RegExp(escapeRegExp(query), "gi");
    rows.forEach(function (row) {
      var text = row.querySelector(".log-text");
      if (!text) return;
      var walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
      var nodes = [];
      while (walker.nextNode()) nodes.push(walker.currentNode);
      nodes.forEach(function (node) {
        var value = node.nodeValue;
        pattern.lastIndex = 0;
        if (!pattern.test(value)) return;
        pattern.lastIndex = 0;
        var fragment = document.createDocumentFragment();
        var last = 0;
        var hit;
        while ((hit = pattern.exec(value)) !== null) {
          if (hit.index > last) fragment.appendChild(document.createTextNode(value.slice(last, hit.index)));
          var mark = document.createElement("mark");
          mark.className = "find-hit";
          mark.textContent = hit[0];
          fragment.appendChild(mark);
          last = hit.index + hit[0].length;
        }
        if (last < value.length) fragment.appendChild(document.createTextNode(value.slice(last)));
        node.parentNode.replaceChild(fragment, node);
      });
    });
  }

  function lineFor(match) {
    return document.getElementById("L" + match.n) || document.getElementById("at" + match.at);
  }

  function sayFound(words) { findStatus.textContent = words; }

  function showMatch(index) {
    var match = found.matches[index];
    var line = lineFor(match);
    if (!line) {
      // Not loaded: open the part of the log around it, and carry on finding there.
      var params = "&line=" + match.n + "&find=" + encodeURIComponent(found.query) + "&match=" + index;
      window.location.assign(view.dataset.lineUrl + params + "#L" + match.n);
      return;
    }
    found.index = index;
    view.querySelectorAll("mark.find-hit.current").forEach(function (m) { m.classList.remove("current"); });
    var marks = line.querySelectorAll("mark.find-hit");
    if (marks.length) marks[Math.min(match.k, marks.length - 1)].classList.add("current");
    scrollToLine(line);
    sayFound((index + 1) + " of " + found.count + (found.count > found.matches.length ? "+" : "") +
      ", " + lineLabel(line));
  }

  function stepMatch(step) {
    if (!found.matches.length) return;
    var index = found.index < 0 ? (step > 0 ? 0 : found.matches.length - 1)
      : (found.index + step + found.matches.length) % found.matches.length;
    showMatch(index);
  }

  // The first match at or after the line the person is on, else the first in the log.
  function startingMatch() {
    var from = rover ? rover.closest(".log-line") : null;
    var number = from ? lineNumber(from) : null;
    for (var i = 0; i < found.matches.length; i++) {
      var line = lineFor(found.matches[i]);
      if (line && (number === null || (lineNumber(line) || 0) >= number)) return i;
    }
    return 0;
  }

  function find(query, then) {
    unmark(view);
    found = { query: query, matches: [], count: 0, index: -1 };
    if (!query.trim()) { sayFound(""); return; }
    sayFound("Finding…");
    fetch(findForm.dataset.findUrl + "&q=" + encodeURIComponent(query), { headers: { Accept: "application/json" } })
      .then(function (response) {
        if ((response.headers.get("Content-Type") || "").indexOf("json") < 0) {
          return { ok: false, body: { detail: "The log could not be searched: log in again, then find again." } };
        }
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      })
      .then(function (answer) {
        if (!answer.ok) { sayFound(answer.body.detail || "The log could not be searched."); return; }
        var body = answer.body;
        found.count = body.count;
        body.lines.forEach(function (line) {
          for (var k = 0; k < Math.min(line.hits, 100); k++) found.matches.push({ n: line.n, at: line.at, k: k });
        });
        markLines(Array.prototype.slice.call(view.querySelectorAll(".log-line")), query);
        if (!found.matches.length) { sayFound("No match in the whole log"); return; }
        then();
      })
      .catch(function () { sayFound("The log could not be searched: this site did not answer."); });
  }

  findForm.addEventListener("submit", function (event) {
    event.preventDefault();
    var query = findInput.value;
    if (query === found.query && found.matches.length) { stepMatch(1); return; }
    find(query, function () { showMatch(startingMatch()); });
  });
  findInput.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !event.shiftKey) return;
    event.preventDefault();
    if (findInput.value === found.query && found.matches.length) stepMatch(-1);
    else find(findInput.value, function () { stepMatch(-1); });
  });
  document.getElementById("find-next").addEventListener("click", function () {
    if (findInput.value !== found.query) find(findInput.value, function () { showMatch(startingMatch()); });
    else stepMatch(1);
  });
  document.getElementById("find-prev").addEventListener("click", function () {
    if (findInput.value !== found.query) find(findInput.value, function () { stepMatch(-1); });
    else stepMatch(-1);
  });

  // --- a live log does not poll while its tab is hidden ------------------------------------------
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.elt.id === "log-live" && document.visibilityState === "hidden") event.preventDefault();
  });

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
    tameFolds();
    if (found.query) {
      markLines(Array.prototype.filter.call(view.querySelectorAll(".log-line"), function (row) {
        return !row.querySelector("mark.find-hit");
      }), found.query);
    }
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
  tameFolds();
  openAtTheRightPlace();
  if (!rover) {
    var lineStops = stops().filter(function (el) { return el.classList.contains("ln"); });
    if (lineStops.length) setRover(lineStops[lineStops.length - 1]);
  }
  if (rover) view.setAttribute("tabindex", "-1"); // the current line is the body's one tab stop
  var opened = view.dataset.focus ? document.getElementById(view.dataset.focus) : null;
  if (opened && opened.classList.contains("log-error")) currentError = opened;
  if (view.dataset.find) {
    // Opened by a match that was not loaded: find again here and stay on that match.
    findInput.value = view.dataset.find;
    var wanted = Number(view.dataset.match || 0);
    find(view.dataset.find, function () { showMatch(Math.min(wanted, found.matches.length - 1)); });
  }
})();
