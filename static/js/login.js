// The login form is enhanced with htmx (hx-post on #login-form): the server answers with the
// login card, sentence in place. When no answer comes back at all (the network or a front
// proxy failed), htmx swaps nothing, so this says so in the same alert and clears the password.
(function () {
  "use strict";
  var NO_ANSWER = "The results service did not answer; try again shortly, or tell an operator.";

  function noAnswer(event) {
    var form = document.getElementById("login-form");
    var alertBox = document.getElementById("login-alert");
    if (!form || !alertBox || event.target !== form) return;
    alertBox.textContent = NO_ANSWER;
    alertBox.hidden = false;
    form.elements.password.value = "";
    form.elements.password.focus();
  }

  document.addEventListener("htmx:sendError", noAnswer);
  document.addEventListener("htmx:responseError", noAnswer);
})();
