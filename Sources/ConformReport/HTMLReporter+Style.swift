extension HTMLReporter {
    /// The page's only style sheet, inlined: readable at 1280 px, printable, colour always paired with a symbol and words.
    static let css = """
        :root { --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #b42318; --fail-bg: #fee4e2; --assumed: #8a5a00; --assumed-bg: #fff1c2;
          --skipped: #57606a; --skipped-bg: #eaeef2; --error: #6e1c8c; --error-bg: #f3e3fb; --line: #d0d7de; --muted: #57606a; }
        * { box-sizing: border-box; }
        html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        body { margin: 0 auto; max-width: 1240px; padding: 24px 32px 48px; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1f2328; background: #fff; }
        code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; }
        a { color: #0b57d0; }
        h1 { font-size: 28px; margin: 0 0 8px; overflow-wrap: anywhere; }
        h2 { font-size: 21px; margin: 32px 0 8px; }
        h3 { font-size: 16px; margin: 0; display: inline; font-weight: 600; }
        h4 { font-size: 14px; margin: 0 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
        .kicker { margin: 0; text-transform: uppercase; letter-spacing: .08em; font-size: 13px; color: var(--muted); }
        .report-header { border-bottom: 2px solid var(--line); padding-bottom: 16px; }
        .overall { display: inline-block; margin: 4px 0 12px; padding: 6px 16px; border-radius: 6px; font-size: 22px; font-weight: 700; border: 2px solid currentColor; }
        .facts { display: flex; flex-wrap: wrap; gap: 4px 32px; margin: 8px 0; }
        .facts div { display: flex; gap: 8px; min-width: 0; max-width: 100%; }
        .facts dt { font-weight: 600; white-space: nowrap; }
        .facts dt::after { content: ":"; }
        .facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
        .counts { list-style: none; display: flex; flex-wrap: wrap; gap: 8px; padding: 0; margin: 12px 0 0; }
        .counts li { padding: 4px 12px; border-radius: 999px; border: 1px solid currentColor; }
        .counts li.zero { opacity: .7; }
        table { border-collapse: collapse; width: 100%; }
        caption { text-align: left; color: var(--muted); padding: 4px 0 8px; }
        th, td { border: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
        thead th { background: #f6f8fa; font-size: 13px; }
        #verdict-matrix td.n, #verdict-matrix th.n { text-align: center; width: 6.5em; }
        #verdict-matrix .suite-cell { min-width: 18em; }
        #verdict-matrix .hash { white-space: nowrap; }
        #verdict-matrix td.n a { display: block; font-weight: 700; text-decoration: none; }
        #verdict-matrix td.zero { color: #8c959f; }
        #verdict-matrix .flow-step { background: #f6f8fa; white-space: nowrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
        #verdict-matrix tbody { border-top: 2px solid #8c959f; }
        #verdict-matrix tfoot th, #verdict-matrix tfoot td { font-weight: 700; background: #f6f8fa; }
        .suite-cell a { font-weight: 600; }
        .suite-title { display: block; font-weight: 400; color: var(--muted); font-size: 13px; overflow-wrap: anywhere; }
        h2 .suite-title { display: inline; font-size: 16px; }
        .badge { display: inline-block; padding: 1px 8px; border-radius: 4px; font-size: 12px; font-weight: 700; white-space: nowrap; border: 1px solid currentColor; text-decoration: none; }
        .v-pass { color: var(--pass); } .badge.v-pass, td.v-pass, .overall.v-pass, .counts .v-pass { background: var(--pass-bg); }
        .v-fail { color: var(--fail); } .badge.v-fail, td.v-fail, .overall.v-fail, .counts .v-fail { background: var(--fail-bg); }
        .v-assumed { color: var(--assumed); } .badge.v-assumed, td.v-assumed, .overall.v-assumed, .counts .v-assumed { background: var(--assumed-bg); }
        .v-skipped { color: var(--skipped); } .badge.v-skipped, td.v-skipped, .counts .v-skipped { background: var(--skipped-bg); }
        .v-error { color: var(--error); } .badge.v-error, td.v-error, .overall.v-error, .counts .v-error { background: var(--error-bg); }
        td.v-pass a, td.v-fail a, td.v-assumed a, td.v-skipped a, td.v-error a { color: inherit; }
        .legend { font-size: 13px; color: var(--muted); line-height: 2; }
        .controls { margin: 8px 0; } .controls button { font: inherit; font-size: 13px; margin-right: 8px; padding: 3px 10px; }
        section.suite { color: #1f2328; border-top: 2px solid var(--line); margin-top: 32px; }
        .back { margin: 4px 0 12px; font-size: 13px; }
        article.step { color: #1f2328; border: 1px solid var(--line); border-left: 6px solid currentColor; border-radius: 4px; margin: 12px 0; padding: 8px 12px; }
        article.step.v-pass { border-left-color: var(--pass); } article.step.v-fail { border-left-color: var(--fail); }
        article.step.v-assumed { border-left-color: var(--assumed); } article.step.v-skipped { border-left-color: var(--skipped); }
        article.step.v-error { border-left-color: var(--error); }
        summary { cursor: pointer; padding: 2px 0; }
        .step-facts { font-size: 13px; }
        .error-text { margin: 8px 0; padding: 6px 10px; background: #fff8f7; border: 1px solid #f5c2c0; border-radius: 4px; overflow-wrap: anywhere; }
        .skip-text { margin: 8px 0; padding: 6px 10px; background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px; overflow-wrap: anywhere; }
        table.diff { margin: 8px 0 12px; font-size: 13px; }
        table.diff caption { font-weight: 600; color: #1f2328; }
        table.diff { table-layout: fixed; }
        table.diff thead th:nth-child(1) { width: 28%; } table.diff thead th:nth-child(2) { width: 12%; }
        table.diff th[scope=row] { font-weight: 400; overflow-wrap: anywhere; }
        table.diff td, table.diff th { overflow-wrap: anywhere; }
        .severity { font-weight: 700; white-space: nowrap; }
        td.expected code { color: var(--pass); } td.actual code { color: var(--fail); }
        .note { color: var(--muted); margin-top: 4px; }
        .exchange { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; margin-top: 8px; }
        .exchange section { min-width: 0; }
        .start-line { margin: 0 0 6px; overflow-wrap: anywhere; }
        table.headers { font-size: 12px; margin-bottom: 6px; }
        table.headers th { width: 35%; font-weight: 600; background: #f6f8fa; overflow-wrap: anywhere; }
        table.headers td { font-family: ui-monospace, "DejaVu Sans Mono", monospace; overflow-wrap: anywhere; }
        pre.body { margin: 0; padding: 8px; background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 480px; overflow: auto; }
        .binary, .muted { color: var(--muted); margin: 4px 0; font-size: 13px; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        footer { margin-top: 40px; font-size: 12px; color: var(--muted); border-top: 1px solid var(--line); }
        @media print {
          body { max-width: none; padding: 0; font-size: 11pt; }
          .controls, .back { display: none; }
          a { color: inherit; text-decoration: none; }
          pre.body { max-height: none; overflow: visible; }
          article.step, tr { break-inside: avoid; }
          h2 { break-after: avoid; }
        }

        """

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
          window.addEventListener("beforeprint", function () { steps().forEach(function (d) { d.open = true; }); });
        })();

        """
}
