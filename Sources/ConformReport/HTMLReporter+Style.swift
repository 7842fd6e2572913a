extension HTMLReporter {
    /// The page's only style sheet, inlined: readable at 1280 px, printable, colour always paired with a symbol and words.
    /// It is `Resources/report.css`, embedded in the code when the package is built (`.embedInCode`), so the page
    /// needs no file at run time wherever the binary is installed.
    static let css = String(decoding: PackageResources.report_css, as: UTF8.self)

    /// Optional behaviour: buttons to fold passing steps; everything is open without it and when printing.
    static let script = """
        (function () {
          document.documentElement.classList.add("js");
          var steps = function () { return document.querySelectorAll("article.step > details"); };
          var controls = document.createElement("p");
          controls.className = "controls";
          [["Fold passing steps", function (d) { return !d.parentNode.classList.contains("v-pass"); }],
           ["Unfold all", function () { return true; }]].forEach(function (pair) {
            var b = document.createElement("button");
            b.type = "button";
            b.textContent = pair[0];
            b.addEventListener("click", function () { steps().forEach(function (d) { d.open = pair[1](d); }); });
            controls.appendChild(b);
          });
          var matrix = document.querySelector("section.matrix");
          if (matrix) { matrix.appendChild(controls); }
          var reveal = function () {
            var el = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
            for (; el; el = el.parentElement) { if (el.tagName === "DETAILS") { el.open = true; } }
          };
          window.addEventListener("hashchange", reveal);
          reveal();
          window.addEventListener("beforeprint", function () {
            document.querySelectorAll("details").forEach(function (d) { d.open = true; });
          });
        })();

        """
}
