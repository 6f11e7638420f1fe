// The login form, enhanced: post JSON to the results proxy and word its answer in place.
// Without JavaScript the same form posts to /login and the server words the answer.
(function () {
  "use strict";
  var form = document.getElementById("login-form");
  var alertBox = document.getElementById("login-alert");
  if (!form || !alertBox || !window.fetch) return;

  var NO_ANSWER = "The results service did not answer; try again shortly, or tell an operator.";
  // Used when the answer carries no sentence of its own (e.g. a front proxy answered instead).
  var BY_STATUS = {
    401: "Wrong user name or password.",
    403: "This login was refused because the page was not opened at the site's own address. " +
      "An operator must have the front proxy pass on X-Forwarded-Proto and X-Forwarded-Host " +
      "and set HTRFLOW_TRUSTED_HOPS to the number of proxies.",
    413: "That login is far too long to be real; check what was pasted into the fields.",
    422: "The login was not understood: it needs a user name of 1 to 256 characters and a password of 1 to 1024 characters.",
    502: "The results store could not be reached; try again later.",
    504: "The results store did not answer in time; try again shortly."
  };

  function show(sentence) {
    alertBox.textContent = sentence;
    alertBox.hidden = !sentence;
  }

  function waitWords(response) {
    var seconds = parseInt(response.headers.get("Retry-After") || "", 10);
    return isNaN(seconds) ? "a while" : seconds + " seconds";
  }

  function sentenceOf(response) {
    return response.json().then(function (data) {
      if (data && typeof data.error === "string" && data.error) return data.error;
      throw new Error("no sentence");
    }).catch(function () {
      if (response.status === 429) return "Too many failed logins; wait " + waitWords(response) + " before trying again.";
      return BY_STATUS[response.status] || NO_ANSWER;
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var button = form.querySelector("button[type=submit]");
    var body = JSON.stringify({ username: form.elements.username.value, password: form.elements.password.value });
    form.elements.password.value = "";
    button.disabled = true;
    fetch("/results/_login", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: body
    }).then(function (response) {
      if (response.status === 204) {
        window.location.assign(form.dataset.next || "/");
        return null;
      }
      return sentenceOf(response);
    }, function () {
      return NO_ANSWER;
    }).then(function (sentence) {
      button.disabled = false;
      if (sentence) {
        show(sentence);
        form.elements.password.focus();
      }
    });
  });
})();
