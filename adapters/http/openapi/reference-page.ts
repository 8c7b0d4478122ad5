/**
 * The API reference page (GET /docs): a small self-contained HTML page plus one script that
 * fetches /openapi.json and renders it. No CDN, fonts or framework, so it works in closed
 * networks and on every runtime; the script is plain ES2020 served from /docs/reference.js.
 */

export const referenceHtml = (title: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title.replace(/[<>&"]/g, "")}</title>
<style>
:root { --fg:#1d2330; --muted:#5b6475; --line:#e3e6ec; --bg:#fff; --side:#f6f7f9; --code:#f2f4f7;
  --get:#1f7a4d; --post:#1d5fbf; --put:#a45c00; --patch:#7a4fbf; --delete:#b42318; }
* { box-sizing: border-box }
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg) }
a { color:inherit }
#layout { display:flex; min-height:100vh }
nav { width:290px; flex:none; background:var(--side); border-right:1px solid var(--line); padding:16px;
  position:sticky; top:0; height:100vh; overflow:auto }
nav h2 { font-size:12px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); margin:18px 0 6px }
nav a { display:flex; gap:8px; align-items:baseline; text-decoration:none; padding:3px 4px; border-radius:4px; font-size:13px; word-break:break-all }
nav a .method { flex:none }
nav a:hover { background:#e9ecf1 }
nav input { width:100%; padding:6px 8px; border:1px solid var(--line); border-radius:6px; font:inherit }
main { flex:1; padding:24px 40px 80px; max-width:1100px; min-width:0 }
h1 { margin:0 0 4px }
.method { display:inline-block; min-width:54px; text-align:center; font:700 11px/1.8 ui-monospace,monospace;
  color:#fff; border-radius:4px; text-transform:uppercase; padding:0 6px }
.m-get{background:var(--get)} .m-post{background:var(--post)} .m-put{background:var(--put)}
.m-patch{background:var(--patch)} .m-delete{background:var(--delete)}
.op { border:1px solid var(--line); border-radius:8px; margin:14px 0; }
.op > summary { list-style:none; cursor:pointer; padding:10px 14px; display:flex; gap:12px; align-items:center }
.op > summary::-webkit-details-marker { display:none }
.op .path { font:600 14px ui-monospace,monospace; word-break:break-all }
.op .sum { color:var(--muted) }
.op .body { padding:0 16px 14px; border-top:1px solid var(--line) }
code, pre { font-family:ui-monospace,SFMono-Regular,Menlo,monospace; font-size:13px }
code { background:var(--code); padding:1px 4px; border-radius:3px }
pre { background:var(--code); padding:10px; border-radius:6px; overflow:auto; max-height:420px }
table { border-collapse:collapse; width:100%; margin:8px 0 }
th, td { text-align:left; border-bottom:1px solid var(--line); padding:5px 8px; vertical-align:top; font-size:14px }
th { color:var(--muted); font-weight:600 }
h3 { font-size:15px; margin:16px 0 6px }
.tag-title { margin-top:36px; border-bottom:2px solid var(--line); padding-bottom:4px }
.lock { font-size:12px; color:var(--muted) }
.req { color:#b42318; font-size:12px }
.schema { margin:0; padding-left:16px; list-style:none; font-size:13px }
.schema li { margin:2px 0 }
.schema .t { color:var(--muted); font-family:ui-monospace,monospace }
.status { font-weight:700; font-family:ui-monospace,monospace }
#error { color:#b42318 }
</style>
</head>
<body>
<div id="layout">
  <nav aria-label="Endpoints"><strong>Keyspace API</strong><p><input id="filter" type="search" placeholder="Filter endpoints" aria-label="Filter endpoints"></p><div id="toc">Loading…</div></nav>
  <main id="content"><p>Loading the API reference…</p><noscript>This page needs JavaScript; the raw document is at <a href="openapi.json">/openapi.json</a>.</noscript></main>
</div>
<script src="docs/reference.js" defer></script>
</body>
</html>
`

/** The renderer. Kept as a string so every runtime serves it without a file system read. */
export const referenceScript =
  String.raw`"use strict";
(function () {
  var base = location.pathname.replace(/\/docs\/?$/, "");
  var el = function (tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) { if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]); }
    (children || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  };
  var doc;
  var resolve = function (s, seen) {
    seen = seen || 0;
    if (s && s.$ref && seen < 20) {
      var parts = s.$ref.replace(/^#\//, "").split("/");
      var t = doc; parts.forEach(function (p) { t = t && t[p.replace(/~1/g, "/").replace(/~0/g, "~")]; });
      return resolve(t || {}, seen + 1);
    }
    return s || {};
  };
  var refName = function (s) { return s && s.$ref ? s.$ref.split("/").pop() : null; };
  var typeText = function (s) {
    var name = refName(s); s = resolve(s);
    if (name) return name;
    if (s.enum) return s.enum.map(function (v) { return JSON.stringify(v); }).join(" | ");
    if (s.const !== undefined) return JSON.stringify(s.const);
    if (s.type === "array") return typeText(s.items || {}) + "[]";
    if (s.anyOf || s.oneOf) return (s.anyOf || s.oneOf).map(typeText).join(" | ");
    if (Array.isArray(s.type)) return s.type.join(" | ");
    return s.type || (s.allOf ? "object" : "any");
  };
  var constraints = function (s) {
    s = resolve(s); var out = [];
    ["minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "pattern", "format"].forEach(function (k) {
      if (s[k] !== undefined) out.push(k + " " + s[k]);
    });
    return out.join(", ");
  };
  // Renders an object schema as a nested field list, depth-limited so recursive shapes stop.
  var schemaTree = function (s, depth) {
    depth = depth || 0; s = resolve(s);
    if (s.allOf) { var merged = { type: "object", properties: {}, required: [] };
      s.allOf.forEach(function (p) { p = resolve(p); Object.assign(merged.properties, p.properties || {}); merged.required = merged.required.concat(p.required || []); });
      s = merged; }
    if (s.type === "array") return schemaTree(s.items, depth);
    var alts = s.anyOf || s.oneOf;
    if (alts && depth < 4) {
      return el("ul", { class: "schema" }, alts.map(function (a, i) {
        return el("li", null, [el("span", { class: "t", text: "one of #" + (i + 1) + ": " + typeText(a) }), schemaTree(a, depth + 1)]);
      }));
    }
    if (!s.properties || depth > 4) return null;
    var req = s.required || [];
    return el("ul", { class: "schema" }, Object.keys(s.properties).map(function (k) {
      var p = s.properties[k]; var r = resolve(p);
      var c = constraints(p);
      return el("li", null, [
        el("code", { text: k }), " ", el("span", { class: "t", text: typeText(p) }),
        req.indexOf(k) >= 0 ? el("span", { class: "req", text: " required" }) : null,
        c ? el("span", { class: "t", text: " (" + c + ")" }) : null,
        r.description ? el("div", { text: r.description }) : null,
        schemaTree(p, depth + 1)
      ]);
    }));
  };
  var markdown = function (text) {
    var wrap = el("div");
    (text || "").split(/\n\n+/).forEach(function (block) {
      if (/^\|/.test(block)) {
        var rows = block.split("\n").filter(function (l) { return !/^\|[-| ]+\|$/.test(l); });
        var table = el("table");
        rows.forEach(function (line, i) {
          var cells = line.replace(/^\||\|$/g, "").split("|");
          table.appendChild(el("tr", null, cells.map(function (c) { return el(i === 0 ? "th" : "td", null, inline(c.trim())); })));
        });
        wrap.appendChild(table);
      } else wrap.appendChild(el("p", null, inline(block)));
    });
    return wrap;
  };
  var inline = function (text) {
    var out = []; var re = /(\*\*[^*]+\*\*|` +
  "`" +
  `[^` +
  "`" +
  `]+` +
  "`" +
  `)/g; var last = 0; var m;
    while ((m = re.exec(text))) {
      out.push(text.slice(last, m.index));
      var t = m[0];
      out.push(t[0] === "*" ? el("strong", { text: t.slice(2, -2) }) : el("code", { text: t.slice(1, -1) }));
      last = m.index + t.length;
    }
    out.push(text.slice(last));
    return out;
  };
  var slug = function (s) { return s.replace(/[^A-Za-z0-9]+/g, "-"); };
  var renderOp = function (method, path, op) {
    var id = op.operationId || slug(method + path);
    var body = el("div", { class: "body" });
    if (op.description) body.appendChild(el("p", { text: op.description }));
    var sec = (op.security || []).map(function (s) { return Object.keys(s)[0]; });
    body.appendChild(el("p", { class: "lock", text: sec.length ? "Authorization: " + sec.join(", ") : "No authentication" }));
    var params = op.parameters || [];
    if (params.length) {
      body.appendChild(el("h3", { text: "Parameters" }));
      body.appendChild(el("table", null, [el("tr", null, ["Name", "In", "Type", "Notes"].map(function (h) { return el("th", { text: h }); }))].concat(
        params.map(function (p) {
          var c = constraints(p.schema || {});
          return el("tr", null, [el("td", null, [el("code", { text: p.name }), p.required ? el("span", { class: "req", text: " required" }) : null]),
            el("td", { text: p.in }), el("td", { text: typeText(p.schema || {}) }), el("td", { text: [p.description, c].filter(Boolean).join("; ") })]);
        }))));
    }
    if (op.requestBody) {
      var media = op.requestBody.content && op.requestBody.content["application/json"];
      body.appendChild(el("h3", { text: "Request body" + (op.requestBody.required ? "" : " (optional)") }));
      if (media) {
        body.appendChild(el("div", { class: "t", text: typeText(media.schema) }));
        var tree = schemaTree(media.schema); if (tree) body.appendChild(tree);
        Object.keys(media.examples || {}).forEach(function (k) {
          body.appendChild(el("div", { text: "Example: " + (media.examples[k].summary || k) }));
          body.appendChild(el("pre", { text: JSON.stringify(media.examples[k].value, null, 2) }));
        });
      }
    }
    body.appendChild(el("h3", { text: "Responses" }));
    var rt = el("table", null, [el("tr", null, ["Status", "Description", "Body"].map(function (h) { return el("th", { text: h }); }))]);
    Object.keys(op.responses || {}).forEach(function (status) {
      var r = op.responses[status];
      var content = r.content || {};
      var mediaType = Object.keys(content)[0];
      var cell = el("td");
      if (mediaType) {
        var sch = content[mediaType].schema || {};
        var s = resolve(sch);
        var data = null;
        (s.allOf || []).forEach(function (p) { p = resolve(p); if (p.properties && p.properties.data) data = p.properties.data; });
        cell.appendChild(el("div", { class: "t", text: mediaType + (data ? " envelope, data: " + typeText(data) : ": " + typeText(sch)) }));
        var t2 = data ? schemaTree(data) : mediaType === "application/json" && !/^[45]/.test(status) ? schemaTree(sch) : null;
        if (t2) { var d = el("details", null, [el("summary", { text: "fields" }), t2]); cell.appendChild(d); }
      }
      rt.appendChild(el("tr", null, [el("td", { class: "status", text: status }), el("td", null, [markdown(r.description)]), cell]));
    });
    body.appendChild(rt);
    var details = el("details", { class: "op", id: id, "data-path": path, "data-method": method }, [
      el("summary", null, [el("span", { class: "method m-" + method, text: method }), el("span", { class: "path", text: path }), el("span", { class: "sum", text: op.summary || "" })]),
      body
    ]);
    return details;
  };
  var render = function () {
    var content = document.getElementById("content"); var toc = document.getElementById("toc");
    content.textContent = ""; toc.textContent = "";
    content.appendChild(el("h1", { text: doc.info.title }));
    content.appendChild(el("p", { class: "lock", text: "Version " + doc.info.version + " · OpenAPI " + doc.openapi + " · " }, [el("a", { href: base + "/openapi.json", text: "openapi.json" })]));
    content.appendChild(markdown(doc.info.description));
    var groups = {}; var order = (doc.tags || []).map(function (t) { return t.name; });
    Object.keys(doc.paths || {}).forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        var op = doc.paths[path][method]; var tag = (op.tags || ["Other"])[0];
        if (order.indexOf(tag) < 0) order.push(tag);
        (groups[tag] = groups[tag] || []).push([method, path, op]);
      });
    });
    var webhooks = doc.webhooks || {};
    order.forEach(function (tag) {
      if (!groups[tag]) return;
      var t = (doc.tags || []).filter(function (x) { return x.name === tag; })[0];
      content.appendChild(el("h2", { class: "tag-title", id: "tag-" + slug(tag), text: tag }));
      if (t && t.description) content.appendChild(el("p", { text: t.description }));
      toc.appendChild(el("h2", { text: tag }));
      groups[tag].forEach(function (g) {
        var node = renderOp(g[0], g[1], g[2]); content.appendChild(node);
        toc.appendChild(el("a", { href: "#" + node.id, "data-entry": g[0].toUpperCase() + " " + g[1] }, [el("span", { class: "method m-" + g[0], text: g[0] }), g[1]]));
      });
    });
    var names = Object.keys(webhooks);
    if (names.length) {
      content.appendChild(el("h2", { class: "tag-title", id: "tag-webhooks", text: "Webhooks" }));
      content.appendChild(el("p", { text: "Events POSTed to your HTTPS listener, signed with HMAC-SHA256 (X-Service-Signature)." }));
      toc.appendChild(el("h2", { text: "Webhooks" }));
      names.forEach(function (name) {
        var node = renderOp("post", name, webhooks[name].post); node.id = "webhook-" + name; content.appendChild(node);
        toc.appendChild(el("a", { href: "#" + node.id, "data-entry": "WEBHOOK " + name }, [el("span", { class: "method m-post", text: "event" }), name]));
      });
    }
    openHash();
  };
  var openHash = function () {
    var target = location.hash && document.getElementById(location.hash.slice(1));
    if (target) { target.open = true; target.scrollIntoView(); }
  };
  window.addEventListener("hashchange", openHash);
  document.getElementById("filter").addEventListener("input", function (e) {
    var q = e.target.value.toLowerCase();
    Array.prototype.forEach.call(document.querySelectorAll("#toc a"), function (a) { a.style.display = a.textContent.toLowerCase().indexOf(q) >= 0 ? "" : "none"; });
  });
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("#toc a"); if (!a) return;
    var target = document.getElementById(a.getAttribute("href").slice(1)); if (target) target.open = true;
  });
  fetch(base + "/openapi.json").then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
    .then(function (d) { doc = d; render(); document.body.setAttribute("data-ready", "true"); })
    .catch(function (err) { var c = document.getElementById("content"); c.textContent = ""; c.appendChild(el("p", { id: "error", text: "Could not load /openapi.json: " + err.message })); });
})();
`
