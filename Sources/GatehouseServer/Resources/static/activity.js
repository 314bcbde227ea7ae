// Gatehouse console: live activity. Reads the page's server-sent events and adds each new request as a row.
// Loaded from /static (the page's CSP allows same-origin scripts only); builds rows with textContent only.
(function () {
  "use strict";
  var rows = document.getElementById("activity-rows");
  var status = document.getElementById("live-status");
  if (!rows || !status || !window.EventSource) { return; }
  var source = new EventSource(status.getAttribute("data-stream"));
  var limit = 200;
  function cell(text, className) {
    var td = document.createElement("td");
    if (className) { td.className = className; }
    td.textContent = text;
    return td;
  }
  source.addEventListener("open", function () { status.textContent = "Live: new requests appear at the top."; });
  source.addEventListener("error", function () { status.textContent = "Reconnecting…"; });
  source.addEventListener("entry", function (event) {
    var e = JSON.parse(event.data);
    var empty = document.getElementById("activity-empty");
    if (empty) { empty.parentNode.removeChild(empty); }
    var tr = document.createElement("tr");
    if (e.is_error) { tr.className = "failed"; }
    var time = cell("", "mono");
    var link = document.createElement("a");
    link.href = "/console/activity/" + e.seq;
    link.title = e.day;
    link.textContent = e.time;
    time.appendChild(link);
    tr.appendChild(time);
    tr.appendChild(cell(e.kind));
    tr.appendChild(cell(e.method + " " + e.route, "mono"));
    var st = cell(String(e.status));
    if (e.error) {
      var code = document.createElement("span");
      code.className = "code";
      code.textContent = " #" + e.error;
      st.appendChild(code);
    }
    tr.appendChild(st);
    tr.appendChild(cell(e.app));
    tr.appendChild(cell(e.person));
    tr.appendChild(cell(e.explanation, "why"));
    tr.appendChild(cell(e.duration, "num"));
    rows.insertBefore(tr, rows.firstChild);
    while (rows.children.length > limit) { rows.removeChild(rows.lastChild); }
  });
})();
