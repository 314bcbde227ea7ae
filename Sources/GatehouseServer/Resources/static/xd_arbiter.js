// Gatehouse: the JavaScript SDK's popup hand-back page (/x/connect/xd_arbiter).
// A dialog opened by /sdk.js with display=popup returns here. This script reads the dialog's answer from the
// URL (the fragment for logins, the query for share and request dialogs), removes it from the address bar, and
// posts it to the page that opened the popup, addressed to the origin the dialog checked against the app's
// "Allowed Domains for the JavaScript SDK": no other page can receive it. Then the popup closes.
(function () {
  'use strict';
  var query = new URLSearchParams(window.location.search);
  var origin = query.get('origin');
  var result = {};
  query.forEach(function (value, key) {
    if (key !== 'origin' && key !== 'relation') result[key] = value;
  });
  new URLSearchParams(window.location.hash.replace(/^#/, '')).forEach(function (value, key) {
    if (key !== '_') result[key] = value;
  });
  try { window.history.replaceState(null, '', window.location.pathname); } catch (e) { /* keep going */ }
  var status = document.getElementById('xd-status');
  if (!window.opener || !origin) {
    if (status) status.textContent = 'You can close this window and return to the app.';
    return;
  }
  window.opener.postMessage({ gatehouse: 'xd_arbiter', result: result }, origin);
  window.close();
})();
