// The login form is enhanced with htmx (hx-post on #login-form): the server answers with the
// login card, sentence in place. When no answer comes back at all (the network or a front
// proxy failed), htmx swaps nothing, so this says so in the same alert and clears the password.
// Its words come from Django's JavaScript catalogue (/jsi18n/, loaded first by base.html): gettext().
(function () {
  "use strict";

  function noAnswer(event) {
    var form = document.getElementById("login-form");
    var alertBox = document.getElementById("login-alert");
    if (!form || !alertBox || event.target !== form) return;
    alertBox.textContent = gettext("The results service did not answer; try again shortly, or tell an operator.");
    alertBox.hidden = false;
    form.elements.password.value = "";
    form.elements.password.focus();
  }

  document.addEventListener("htmx:sendError", noAnswer);
  document.addEventListener("htmx:responseError", noAnswer);
})();
