// Copy buttons: <button class="copy-button" data-copy="#id"> copies the text of the element it names
// (or data-copy-text) and says "Copied" in its own label for a moment, so a screen reader hears it too.
// An element with an id and data-copy-label gets such a button made for it here.
// Its words come from Django's JavaScript catalogue (/jsi18n/, loaded first by base.html): gettext().
(function () {
  "use strict";
  if (window.htrCopyButtons) return;
  window.htrCopyButtons = true;

  function textFor(button) {
    if (button.hasAttribute("data-copy-text")) return button.getAttribute("data-copy-text");
    var source = document.querySelector(button.getAttribute("data-copy"));
    return source ? source.textContent : "";
  }

  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var done = false;
    try { done = document.execCommand("copy"); } catch (e) { done = false; }
    area.remove();
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function say(button, words) {
    if (!button.dataset.label) button.dataset.label = button.textContent;
    var status = button.nextElementSibling && button.nextElementSibling.classList.contains("copy-status")
      ? button.nextElementSibling : null;
    if (!status) {
      status = document.createElement("span");
      status.className = "copy-status";
      status.setAttribute("role", "status");
      button.after(status);
    }
    status.textContent = words;
    clearTimeout(button._copyTimer);
    button._copyTimer = setTimeout(function () { status.textContent = ""; }, 4000);
  }

  function copy(button) {
    var text = textFor(button);
    var write = navigator.clipboard && window.isSecureContext
      ? navigator.clipboard.writeText(text).catch(function () { return fallbackCopy(text); })
      : fallbackCopy(text);
    write.then(function () { say(button, gettext("Copied")); }, function () {
      say(button, gettext("Could not copy: select the text and copy it yourself"));
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".copy-button");
    if (button) copy(button);
  });
  function addButtons() {
    document.querySelectorAll("[data-copy-label][id]").forEach(function (source) {
      var next = source.nextElementSibling;
      if (next && next.classList.contains("copy-button")) return;
      var button = document.createElement("button");
      button.id = source.id + "-copy";  // an id, so htmx can give focus back after a swap
      button.type = "button";
      button.className = "copy-button";
      button.setAttribute("data-copy", "#" + CSS.escape(source.id));
      button.setAttribute("aria-label", source.getAttribute("data-copy-label"));
      button.setAttribute("aria-describedby", source.id);
      button.textContent = gettext("Copy");
      source.after(button);
      button.before(document.createTextNode(" "));
    });
  }
  function reveal() {
    document.querySelectorAll(".copy-button[hidden]").forEach(function (b) { b.hidden = false; });
    addButtons();
  }
  reveal();
  document.addEventListener("DOMContentLoaded", reveal);
  document.body && document.body.addEventListener("htmx:afterSettle", reveal);
})();
