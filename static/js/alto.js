// ALTO page viewer: image and text side by side, kept in step. Hover or focus a line to light it
// up on both sides, click to bring the other side to it, arrows to walk lines, zoom and drag to pan.
// Its words come from Django's JavaScript catalogue (/jsi18n/, loaded first by base.html): gettext().
(function () {
  "use strict";
  // --- the page strip: one tab stop (this page), arrow keys move along it ---------------------
  var strip = document.getElementById("page-strip");
  if (strip) {
    var current = strip.querySelector("a.current");
    if (current) current.scrollIntoView({ block: "nearest", inline: "center" });
    window.htrRover(strip, "a.thumb", {
      step: function (key, at, count) {
        return { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: count - 1 }[key];
      },
      moved: function (link) { link.scrollIntoView({ block: "nearest", inline: "nearest" }); },
    });
  }

  var viewer = document.getElementById("alto-viewer");
  if (!viewer) return;
  var pane = document.getElementById("alto-image");
  var svg = document.getElementById("alto-svg");
  var textPane = document.getElementById("alto-text");
  var zoom = 1;
  var active = null;

  // --- the image: tell people when it does not load ------------------------------------
  var holder = document.getElementById("alto-image-url");
  var url = holder ? holder.dataset.url : "";
  if (url) {
    var probe = new Image();
    probe.onerror = function () {
      document.getElementById("alto-image-failed").hidden = false;
      viewer.classList.add("image-failed");
    };
    probe.onload = function () { viewer.classList.add("image-loaded"); };
    probe.src = url;
  }

  // --- zoom and pan ---------------------------------------------------------------------------
  var box = svg.viewBox.baseVal;
  function applyZoom(keepCentre) {
    var centreX = (pane.scrollLeft + pane.clientWidth / 2) / (svg.clientWidth || 1);
    var centreY = (pane.scrollTop + pane.clientHeight / 2) / (svg.clientHeight || 1);
    var width = Math.max(100, (pane.clientWidth - 2) * zoom);
    svg.style.width = width + "px";
    svg.style.height = (width * box.height) / box.width + "px";
    if (keepCentre) {
      pane.scrollLeft = centreX * svg.clientWidth - pane.clientWidth / 2;
      pane.scrollTop = centreY * svg.clientHeight - pane.clientHeight / 2;
    }
  }
  var zoomLevel = document.getElementById("zoom-level");
  // The zoom as a percentage written the page's language's way ("125%", Swedish "125 %").
  var percent = new Intl.NumberFormat(document.documentElement.lang || undefined, { style: "percent", maximumFractionDigits: 0 });
  function setZoom(value) {
    zoom = Math.min(8, Math.max(0.25, value));
    applyZoom(true);
    var words = zoom === 1 ? gettext("Zoom %(percent)s (fit)") : gettext("Zoom %(percent)s");
    zoomLevel.textContent = interpolate(words, { percent: percent.format(zoom) }, true);
  }
  document.querySelectorAll(".js-only").forEach(function (el) { el.hidden = false; });
  document.getElementById("zoom-in").addEventListener("click", function () { setZoom(zoom * 1.25); });
  document.getElementById("zoom-out").addEventListener("click", function () { setZoom(zoom / 1.25); });
  document.getElementById("zoom-fit").addEventListener("click", function () { setZoom(1); });
  pane.addEventListener("wheel", function (event) {
    if (!event.ctrlKey) return;
    event.preventDefault();
    setZoom(zoom * (event.deltaY < 0 ? 1.1 : 1 / 1.1));
  }, { passive: false });
  pane.addEventListener("keydown", function (event) {
    if (event.key === "+" || event.key === "=") setZoom(zoom * 1.25);
    else if (event.key === "-") setZoom(zoom / 1.25);
    else if (event.key === "0") setZoom(1);
  });
  window.addEventListener("resize", function () { applyZoom(false); });

  var drag = null;
  var dragged = false;
  pane.addEventListener("pointerdown", function (event) {
    if (event.button !== 0) return;
    drag = { x: event.clientX, y: event.clientY, left: pane.scrollLeft, top: pane.scrollTop };
    dragged = false;
  });
  window.addEventListener("pointermove", function (event) {
    if (!drag) return;
    var dx = event.clientX - drag.x;
    var dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) { dragged = true; pane.classList.add("dragging"); }
    pane.scrollLeft = drag.left - dx;
    pane.scrollTop = drag.top - dy;
  });
  window.addEventListener("pointerup", function () {
    drag = null;
    pane.classList.remove("dragging");
  });

  // --- lines on both sides ------------------------------------------------------------------
  function lineItem(n) { return document.getElementById("L" + n); }
  function polygon(n) { return document.getElementById("poly-" + n); }

  function activate(n) {
    if (active === n) return;
    if (active !== null) {
      [lineItem(active), polygon(active)].forEach(function (el) { if (el) el.classList.remove("active"); });
    }
    active = n;
    [lineItem(n), polygon(n)].forEach(function (el) { if (el) el.classList.add("active"); });
  }

  function showPolygon(n) {
    var shape = polygon(n);
    if (!shape) return;
    var shapeBox = shape.getBoundingClientRect();
    var paneBox = pane.getBoundingClientRect();
    pane.scrollTop += shapeBox.top - paneBox.top - (pane.clientHeight - shapeBox.height) / 2;
    pane.scrollLeft += shapeBox.left - paneBox.left - Math.max(0, (pane.clientWidth - shapeBox.width) / 2);
  }

  function showLine(n) {
    var item = lineItem(n);
    if (!item) return;
    var itemBox = item.getBoundingClientRect();
    var paneBox = textPane.getBoundingClientRect();
    if (itemBox.top < paneBox.top || itemBox.bottom > paneBox.bottom) {
      textPane.scrollTop += itemBox.top - paneBox.top - textPane.clientHeight / 3;
    }
  }

  function lineOf(target) {
    var el = target.closest ? target.closest("[data-line]") : null;
    return el ? el.dataset.line : null;
  }

  viewer.addEventListener("mouseover", function (event) {
    var n = lineOf(event.target);
    if (n) activate(n);
  });
  viewer.addEventListener("focusin", function (event) {
    var n = lineOf(event.target);
    if (n) { activate(n); showPolygon(n); }
  });
  viewer.addEventListener("click", function (event) {
    var n = lineOf(event.target);
    if (!n || dragged) return;
    activate(n);
    if (event.target.closest(".alto-poly")) {
      showLine(n);
      lineItem(n).focus({ preventScroll: true });
    } else {
      showPolygon(n);
    }
    if (event.target.closest(".ln")) event.preventDefault();
    history.replaceState(null, "", "#L" + n);
  });

  // The text lines are one tab stop: the line last visited; the arrow keys (or j and k) move it.
  var lines = window.htrRover(textPane, ".alto-line", {
    clamp: true,
    step: function (key, at, count) {
      return { ArrowDown: at + 1, j: at + 1, ArrowUp: at - 1, k: at - 1, Home: 0, End: count - 1 }[key];
    },
    moved: function (item) { showLine(item.dataset.line); },
  });
  textPane.addEventListener("keydown", function (event) {
    var item = event.target.closest(".alto-line");
    if (!item || event.key !== "Enter") return;
    showPolygon(item.dataset.line);
    history.replaceState(null, "", "#L" + item.dataset.line);
  });

  document.getElementById("alto-low-only").addEventListener("change", function (event) {
    viewer.classList.toggle("low-only", event.target.checked);
    var stop = lines.current();
    var items = lines.stops();
    if ((!stop || stop.offsetParent === null) && items.length) lines.set(items[0]);
  });

  applyZoom(false);
  var wanted = /^#L(\d+)$/.exec(window.location.hash);
  if (wanted && lineItem(wanted[1])) {
    lines.set(lineItem(wanted[1]));
    activate(wanted[1]);
    lineItem(wanted[1]).focus({ preventScroll: true });
    showLine(wanted[1]);
    showPolygon(wanted[1]);
  }
})();
