// One tab stop for a list of items (a roving tabindex): the item last visited has tabindex 0, the others
// -1, and keys move it. The run log's lines and the ALTO page's lines and page strip use it.
//   htrRover(root, selector, {step: function (key, at, count) -> next index or undefined,
//                             moved: function (item) (optional), clamp: true to stop at the ends})
// returns {set(item), current(), stops()}. Only items shown (not hidden by a filter or a fold) are stops.
(function () {
  "use strict";
  if (window.htrRover) return;

  window.htrRover = function (root, selector, options) {
    var current = root.querySelector(selector.split(",").map(function (s) { return s + "[tabindex='0']"; }).join(","));

    function set(item) {
      if (!item || item === current) return;
      if (current) current.setAttribute("tabindex", "-1");
      current = item;
      item.setAttribute("tabindex", "0");
    }

    function stops() {
      return Array.prototype.filter.call(root.querySelectorAll(selector), function (el) {
        return el.offsetParent !== null;
      });
    }

    function itemOf(target) {
      var item = target && target.closest ? target.closest(selector) : null;
      return item && root.contains(item) ? item : null;
    }

    root.addEventListener("keydown", function (event) {
      var all = stops();
      var at = all.indexOf(itemOf(event.target));
      if (at < 0) return;
      var next = options.step(event.key, at, all.length);
      if (next === undefined || next === null) return;
      if (!options.clamp && (next < 0 || next >= all.length)) return;
      event.preventDefault();
      var item = all[Math.max(0, Math.min(all.length - 1, next))];
      set(item);
      item.focus({ preventScroll: true });
      if (options.moved) options.moved(item);
    });
    root.addEventListener("focusin", function (event) { set(itemOf(event.target)); });

    return { set: set, current: function () { return current; }, stops: stops };
  };
})();
