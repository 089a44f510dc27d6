/* Report behaviour: sortable tables, an episode filter, step navigation and overlay toggles. */
(function () {
  "use strict";

  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    if (!cell) return numeric ? -Infinity : "";
    var raw = cell.getAttribute("data-v");
    if (numeric) {
      var value = parseFloat(raw !== null ? raw : cell.textContent.replace(/[^0-9.+-]/g, ""));
      return isNaN(value) ? -Infinity : value;
    }
    return (raw !== null ? raw : cell.textContent).trim().toLowerCase();
  }

  function makeSortable(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, index) {
      var kind = th.getAttribute("data-sort");
      if (!kind) return;
      th.addEventListener("click", function () {
        var asc = !th.classList.contains("asc");
        Array.prototype.forEach.call(heads, function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(asc ? "asc" : "desc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, index, kind === "n"), y = cellValue(b, index, kind === "n");
          return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }

  function setupFilter() {
    var input = document.getElementById("filter");
    var table = document.getElementById("episodes");
    var shown = document.getElementById("shown");
    if (!input || !table) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var texts = rows.map(function (r) { return r.textContent.toLowerCase(); });
    function apply() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var count = 0;
      rows.forEach(function (row, i) {
        var ok = words.every(function (w) { return texts[i].indexOf(w) >= 0; });
        row.style.display = ok ? "" : "none";
        if (ok) count += 1;
      });
      if (shown) shown.textContent = count + " of " + rows.length + " shown";
    }
    input.addEventListener("input", apply);
    apply();
  }

  function setupSteps() {
    var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
    var squares = Array.prototype.slice.call(document.querySelectorAll("#strip .sq"));
    if (!steps.length) return;
    var current = -1;
    function select(index, scroll) {
      if (index < 0 || index >= steps.length) return;
      if (current >= 0) {
        steps[current].classList.remove("current");
        if (squares[current]) squares[current].classList.remove("current");
      }
      current = index;
      steps[index].classList.add("current");
      if (squares[index]) squares[index].classList.add("current");
      if (scroll) {
        steps[index].scrollIntoView({ block: "start" });
        try { history.replaceState(null, "", "#" + steps[index].id); } catch (e) { /* file:// may refuse */ }
      }
    }
    var fromHash = steps.findIndex(function (s) { return "#" + s.id === location.hash; });
    select(fromHash >= 0 ? fromHash : 0, false);
    squares.forEach(function (sq, i) {
      sq.addEventListener("click", function (e) { e.preventDefault(); select(i, true); });
    });
    steps.forEach(function (s, i) { s.addEventListener("click", function () { select(i, false); }); });
    var ocr = document.getElementById("ocr-toggle");
    var action = document.getElementById("overlay-toggle");
    function syncToggles() {
      document.body.classList.toggle("show-ocr", !!(ocr && ocr.checked));
      document.body.classList.toggle("hide-action", !!(action && !action.checked));
    }
    if (ocr) ocr.addEventListener("change", syncToggles);
    if (action) action.addEventListener("change", syncToggles);
    syncToggles();
    document.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA") return;
      var key = e.key;
      if (key === "j" || key === "ArrowDown" || key === "ArrowRight") { select(current + 1, true); e.preventDefault(); }
      else if (key === "k" || key === "ArrowUp" || key === "ArrowLeft") { select(current - 1, true); e.preventDefault(); }
      else if (key === "Home") { select(0, true); e.preventDefault(); }
      else if (key === "End") { select(steps.length - 1, true); e.preventDefault(); }
      else if (key === "o" && ocr) { ocr.checked = !ocr.checked; syncToggles(); }
      else if (key === "a" && action) { action.checked = !action.checked; syncToggles(); }
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
  setupFilter();
  setupSteps();

  /* A marker a headless check reads with --dump-dom: the script ran, and which errors it saw. */
  var marker = document.createElement("div");
  marker.id = "report-status";
  marker.hidden = true;
  function publish() {
    marker.setAttribute("data-js-ok", "1");
    marker.setAttribute("data-errors", String(window.__reportErrors ? window.__reportErrors.length : 0));
    marker.textContent = (window.__reportErrors || []).join("\n");
  }
  document.body.appendChild(marker);
  publish();
  window.addEventListener("error", publish);
  window.addEventListener("load", publish);
})();
