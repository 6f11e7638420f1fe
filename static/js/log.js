// Run log viewer: what only a browser can do. Open at the right line, follow the bottom while live,
// keep the place when earlier lines arrive, walk the errors and the lines by keyboard, find in the
// whole log. The server groups and folds the lines (also those a poll or "show earlier" brings), and
// htmx polls, paused while the tab is hidden and backing off on failures (data-poll, campaigns.js).
// No inline code. Its words come from Django's JavaScript catalogue (/jsi18n/, loaded first by base.html):
// gettext(), ngettext() and interpolate() with named placeholders.
(function () {
  "use strict";
  var view = document.getElementById("log-view");
  if (!view) return;
  var lines = document.getElementById("log-lines");
  var followBottom = false;
  var keepFromBottom = null;

  function atBottom() {
    return view.scrollHeight - view.scrollTop - view.clientHeight < 40;
  }

  // Where an element is, in pixels below the top of the visible part of the log.
  function fromViewTop(el) {
    return el.getBoundingClientRect().top - view.getBoundingClientRect().top;
  }

  function lineNumber(line) {
    var match = /^L(\d+)$/.exec(line.id);
    return match ? Number(match[1]) : null;
  }

  // What a fold of HTTP request lines says, as the server says it (results/formats/runlog.py, fold_label): it
  // hides only those lines, so it names a range only when they are all of it.
  function foldLabel(count, first, last) {
    var values = { count: count, first: first, last: last };
    if (last - first + 1 !== count) {
      if (count === 2) return interpolate(gettext("2 HTTP requests · lines %(first)s and %(last)s"), values, true);
      return interpolate(ngettext("%(count)s HTTP request between lines %(first)s and %(last)s",
        "%(count)s HTTP requests between lines %(first)s and %(last)s", count), values, true);
    }
    return interpolate(ngettext("%(count)s HTTP request · line %(first)s–%(last)s",
      "%(count)s HTTP requests · lines %(first)s–%(last)s", count), values, true);
  }

  function lineLabel(line) {
    var number = lineNumber(line);
    if (number) return interpolate(gettext("line %(number)s"), { number: number }, true);
    return interpolate(gettext("byte %(offset)s"), { offset: line.id.replace(/^at/, "") }, true);
  }

  // --- one tab stop for the log body: the current line's number; arrow keys move it ------------
  var STOPS = ".log-line > .ln, .http-fold > summary";
  var rover = window.htrRover(view, STOPS, {
    clamp: true,
    step: function (key, at, count) {
      var page = Math.max(1, Math.floor(view.clientHeight / 20));
      return { ArrowDown: at + 1, ArrowUp: at - 1, PageDown: at + page, PageUp: at - page, Home: 0, End: count - 1 }[key];
    },
    moved: function (el) {
      var box = el.getBoundingClientRect();
      var viewBox = view.getBoundingClientRect();
      if (box.top < viewBox.top + 4) view.scrollTop -= viewBox.top + 4 - box.top;
      else if (box.bottom > viewBox.bottom - 4) view.scrollTop += box.bottom - (viewBox.bottom - 4);
    },
  });
  view.addEventListener("click", function (event) {
    var line = event.target.closest && event.target.closest(".log-line");
    if (line) rover.set(line.querySelector(".ln"));
  });
  // Summaries of HTTP folds are reached with the arrow keys like the lines, not with Tab.
  function tameFolds() {
    view.querySelectorAll(".http-fold > summary").forEach(function (summary) {
      if (summary !== rover.current()) summary.setAttribute("tabindex", "-1");
    });
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
    rover.set(line.querySelector(".ln"));
  }

  // A line outside the part read so far: ask the server for the part around it (by number or byte).
  function openAround(kind, value) {
    if (view.dataset.deepLine || !view.dataset.lineUrl) return false;
    window.location.replace(view.dataset.lineUrl + "&" + kind + "=" + value + "#" + (kind === "line" ? "L" : "at") + value);
    return true;
  }

  function openAtTheRightPlace() {
    var match = /^#(L|at)(\d+)$/.exec(window.location.hash);
    if (match) {
      var wanted = document.getElementById(match[1] + match[2]);
      if (wanted) { scrollToLine(wanted); return; }
      if (openAround(match[1] === "L" ? "line" : "at", match[2])) return;
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

  // --- errors: Next and Previous walk them in order and wrap; focus stays on the button ----------
  var currentError = null; // the error line last jumped to
  var errorStatus = document.getElementById("error-status");

  function errors() {
    return Array.prototype.slice.call(view.querySelectorAll(".log-error"));
  }

  function jumpError(step) {
    var list = errors();
    if (!list.length) return;
    var index = currentError ? list.indexOf(currentError) : -1;
    if (index < 0) index = step > 0 ? -1 : list.length;
    index = (index + step + list.length) % list.length;
    currentError = list[index];
    scrollToLine(currentError);
    errorStatus.textContent = interpolate(gettext("Error %(index)s of %(count)s, %(line)s"),
      { index: index + 1, count: list.length, line: lineLabel(currentError) }, true);
  }

  // The toolbar counts the errors of every line on the page, those polls and "show earlier" added too.
  function updateErrorCount() {
    var count = document.getElementById("log-error-count");
    var list = errors();
    if (count) {
      count.textContent = "";
      if (!list.length) {
        count.textContent = gettext("No errors in the lines shown");
      } else {
        var link = document.createElement("a");
        link.href = "#" + list[0].id;
        link.textContent = lineLabel(list[0]);
        var n = list.length;
        // The sentence around the link to the first error: the words before %(line)s and after it.
        var words = ngettext("%(count)s error · %(line)s", "%(count)s errors · first at %(line)s", n).split("%(line)s");
        count.append(interpolate(words[0], { count: n }, true), link, interpolate(words[1] || "", { count: n }, true));
      }
    }
    document.querySelectorAll(".needs-errors").forEach(function (button) { button.hidden = !list.length; });
  }

  // --- HTTP requests: "Show HTTP requests" opens every row, those that arrive later too ----------
  var httpToggle = document.getElementById("toggle-http");
  function offerHttpToggle() {
    httpToggle.hidden = !lines.querySelector("details.http-fold");
    if (httpToggle.getAttribute("aria-pressed") === "true") {
      lines.querySelectorAll("details.http-fold").forEach(function (fold) { fold.open = true; });
    }
  }
  httpToggle.addEventListener("click", function () {
    var open = httpToggle.getAttribute("aria-pressed") !== "true";
    httpToggle.setAttribute("aria-pressed", String(open));
    httpToggle.textContent = open ? gettext("Hide HTTP requests") : gettext("Show HTTP requests");
    lines.querySelectorAll("details.http-fold").forEach(function (fold) { fold.open = open; });
  });

  // --- numbers for a log too large to count when it opened ------------------------------------
  // Once "show earlier" has reached line 1, every line on the page can be counted from it: only the
  // page knows which lines it holds. A line keeps its byte-position anchor (#at…) so links made before
  // still reach it, and each HTTP row's label gets the numbers of the lines it spans.
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
      link.setAttribute("aria-label", interpolate(gettext("Line %(number)s"), { number: number }, true));
    });
    lines.querySelectorAll(".log-stretch > details.http-fold .http-label").forEach(function (label) {
      var requests = label.closest(".log-stretch").querySelectorAll(".kind-http");
      if (!requests.length) return;
      label.textContent = foldLabel(requests.length, lineNumber(requests[0]), lineNumber(requests[requests.length - 1]));
    });
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

  // The text node ``node`` with every match of ``pattern`` in a <mark>.
  function markNode(node, pattern) {
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
      nodes.forEach(function (node) { markNode(node, pattern); });
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
    var counted = found.count > found.matches.length
      ? gettext("%(index)s of %(count)s+, %(line)s") : gettext("%(index)s of %(count)s, %(line)s");
    var words = interpolate(counted, { index: index + 1, count: found.count, line: lineLabel(line) }, true);
    if (how) words = how + " " + words;
    sayFound(words);
  }

  // Said before the position when the search starts or wraps, so a person hears where it went.
  var how = "";

  function stepMatch(step) {
    if (!found.matches.length) return;
    var count = found.matches.length;
    var index = found.index < 0 ? (step > 0 ? 0 : count - 1) : found.index + step;
    how = "";
    if (found.index >= 0 && index >= count) how = gettext("Past the last match: back to the first.");
    if (found.index >= 0 && index < 0) how = gettext("Before the first match: on to the last.");
    showMatch((index + count) % count);
  }

  // Where the first search starts, as the find bar's choice says: the top of the log, or the first line in view
  // (its first match at or after that line; past the last match it wraps to the first and says so).
  var findFrom = document.getElementById("find-from");
  function lineInView() {
    var top = Math.max(view.getBoundingClientRect().top, 0);
    var rows = view.querySelectorAll(".log-line");
    for (var i = 0; i < rows.length; i++) {
      if (rows[i].offsetParent !== null && rows[i].getBoundingClientRect().bottom > top + 1) return rows[i];
    }
    return null;
  }
  function startingMatch() {
    if (!findFrom || findFrom.value !== "view") {
      how = gettext("From the top of the log:");
      return 0;
    }
    var from = lineInView();
    var number = from ? lineNumber(from) : null;
    how = from ? interpolate(gettext("From %(line)s, the first line in view:"), { line: lineLabel(from) }, true) : "";
    var offset = from ? Number((from.id.match(/^at(\d+)$/) || [])[1] || -1) : -1;
    for (var i = 0; i < found.matches.length; i++) {
      var match = found.matches[i];
      if (number !== null ? match.n >= number : match.at >= offset) return i;
    }
    how = gettext("No match after the line in view: from the top of the log:");
    return 0;
  }

  function answerOf(response) {
    if ((response.headers.get("Content-Type") || "").indexOf("json") < 0) {
      return { ok: false, body: { detail: gettext("The log could not be searched: log in again, then find again.") } };
    }
    return response.json().then(function (body) { return { ok: response.ok, body: body }; });
  }

  function find(query, then) {
    unmark(view);
    found = { query: query, matches: [], count: 0, index: -1 };
    if (!query.trim()) { sayFound(""); return; }
    sayFound(gettext("Finding…"));
    fetch(findForm.dataset.findUrl + "&q=" + encodeURIComponent(query), { headers: { Accept: "application/json" } })
      .then(answerOf)
      .then(function (answer) {
        if (!answer.ok) { sayFound(answer.body.detail || gettext("The log could not be searched.")); return; }
        found.count = answer.body.count;
        answer.body.lines.forEach(function (line) {
          for (var k = 0; k < Math.min(line.hits, 100); k++) found.matches.push({ n: line.n, at: line.at, k: k });
        });
        markLines(Array.prototype.slice.call(view.querySelectorAll(".log-line")), query);
        if (!found.matches.length) { sayFound(gettext("No match in the whole log")); return; }
        then();
      })
      .catch(function () { sayFound(gettext("The log could not be searched: this site did not answer.")); });
  }

  // Enter and Next go forward, Shift+Enter and Previous back; a new query is found first.
  function findStep(step) {
    if (findInput.value === found.query && found.matches.length) { stepMatch(step); return; }
    find(findInput.value, function () { if (step > 0) showMatch(startingMatch()); else stepMatch(-1); });
  }
  findForm.addEventListener("submit", function (event) {
    event.preventDefault();
    findStep(1);
  });
  findInput.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !event.shiftKey) return;
    event.preventDefault();
    findStep(-1);
  });
  document.getElementById("find-next").addEventListener("click", function () { findStep(1); });
  document.getElementById("find-prev").addEventListener("click", function () { findStep(-1); });

  document.querySelectorAll(".js-only").forEach(function (el) { el.hidden = false; });
  offerHttpToggle();
  document.getElementById("next-error").addEventListener("click", function () { jumpError(1); });
  document.getElementById("prev-error").addEventListener("click", function () { jumpError(-1); });
  window.addEventListener("hashchange", function () {
    var match = /^#(L\d+|at\d+)$/.exec(window.location.hash);
    if (match) scrollToLine(document.getElementById(match[1]));
  });

  // --- lines that arrive: keep following the bottom, or keep the place when earlier ones come ----
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var source = event.detail.elt;
    if (source.id === "log-live") followBottom = atBottom();
    if (source.closest && source.closest("#log-earlier")) keepFromBottom = view.scrollHeight - view.scrollTop;
  });
  document.body.addEventListener("htmx:afterSettle", function () {
    numberFromStart();
    offerHttpToggle();
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

  updateErrorCount();
  tameFolds();
  openAtTheRightPlace();
  if (!rover.current()) {
    var lineStops = rover.stops().filter(function (el) { return el.classList.contains("ln"); });
    if (lineStops.length) rover.set(lineStops[lineStops.length - 1]);
  }
  if (rover.current()) view.setAttribute("tabindex", "-1"); // the current line is the body's one tab stop
  var opened = view.dataset.focus ? document.getElementById(view.dataset.focus) : null;
  if (opened && opened.classList.contains("log-error")) currentError = opened;
  if (view.dataset.find) {
    // Opened by a match that was not loaded: find again here and stay on that match.
    findInput.value = view.dataset.find;
    var wanted = Number(view.dataset.match || 0);
    find(view.dataset.find, function () { showMatch(Math.min(wanted, found.matches.length - 1)); });
  }
})();
