/* Injected at the top of a copy of an nd report by tests/browser/check_reports.sh: records
 * every error the page raises (script errors, resources that fail to load, console.error),
 * and once the page has loaded writes a verdict into <pre id="nd-check">, which the test
 * reads from chromium's --dump-dom. The report itself carries no script. */
(function () {
  var problems = [];
  window.addEventListener('error', function (e) {
    var what = e.message || (e.target && (e.target.src || e.target.href || e.target.tagName)) || 'unknown';
    problems.push('page error: ' + what);
  }, true);
  var original = console.error;
  console.error = function () {
    problems.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
    original.apply(console, arguments);
  };
  window.addEventListener('load', function () {
    var want = (document.querySelector('meta[name="nd-want"]') || {content: ''}).content.split(' ');
    want.forEach(function (id) {
      if (!id) return;
      var s = document.getElementById(id);
      if (!s) { problems.push('missing section: ' + id); return; }
      if (s.textContent.replace(/\s+/g, '').length < 20) problems.push('empty section: ' + id);
    });
    var svgs = document.querySelectorAll('figure svg');
    var figures = document.querySelectorAll('figure');
    if (figures.length !== svgs.length) problems.push('figures without an svg: ' + (figures.length - svgs.length));
    for (var i = 0; i < svgs.length; i++) {
      var svg = svgs[i], box = svg.getBoundingClientRect(), bb = null;
      try { bb = svg.getBBox(); } catch (err) { problems.push('svg ' + i + ': getBBox failed: ' + err); continue; }
      var drawn = svg.querySelectorAll('path, rect, text, polyline, circle, use').length;
      if (box.width < 200 || box.height < 100) problems.push('svg ' + i + ' drawn ' + box.width + 'x' + box.height + ' px');
      if (!(bb.width > 100 && bb.height > 50)) problems.push('svg ' + i + ' content box ' + bb.width + 'x' + bb.height);
      if (drawn < 20) problems.push('svg ' + i + ' has ' + drawn + ' drawn elements');
    }
    var imgs = document.querySelectorAll('img');
    for (var j = 0; j < imgs.length; j++)
      if (!imgs[j].complete || imgs[j].naturalWidth === 0) problems.push('image ' + j + ' does not render');
    var outside = document.querySelectorAll('[src], link[href], object, iframe, embed');
    if (outside.length) problems.push(outside.length + ' element(s) load something from outside the page');
    var pre = document.createElement('pre');
    pre.id = 'nd-check';
    /* The markers are built here, so the script's own text, also in the dump, never matches. */
    var mark = 'ND' + '-CHECK';
    pre.textContent = mark + '-RESULT figures=' + svgs.length + ' problems=' + problems.length +
      (problems.length ? '\n' + problems.join('\n') : '') + '\n' + mark + '-END';
    document.body.appendChild(pre);
  });
})();
