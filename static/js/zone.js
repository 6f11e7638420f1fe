// Tells the site the reader's time zone, as the browser reports it, so every time is said in it: a cookie
// `tz` (for a year) that htrbrowser.middleware.ReaderZoneMiddleware reads and checks against the tz database.
// Set only when it differs from what is there: the page that sets it was said in the site's default zone
// (or the zone before); the next request, a poll or a page, is said in this one.
(function () {
  "use strict";
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (error) {
    return;
  }
  // A tz database name only (letters, digits, "_", "+", "-", "/"): nothing else is worth sending.
  if (typeof zone !== "string" || zone.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/.test(zone)) {
    return;
  }
  var kept = document.cookie.split("; ").some(function (pair) { return pair === "tz=" + zone; });
  if (kept) return;
  var secure = window.location.protocol === "https:" ? "; Secure" : "";
  document.cookie = "tz=" + zone + "; path=/; max-age=31536000; SameSite=Lax" + secure;
})();
