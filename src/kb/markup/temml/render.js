// TeX to MathML with Temml, for kb.markup.math: one request a line on stdin, one answer a line
// on stdout, both JSON. A request is [tex, display]; an answer is {"mathml": "..."} or
// {"error": "..."}. Nothing is read but stdin; Temml's trust stays off, so \href, \url,
// \class, \style and \data are errors, never output.
"use strict";
const readline = require("readline");
const temml = require("./temml.cjs");

// LaTeX commands papers use that Temml leaves out.
const macros = { "\\mbox": "\\text{#1}" };

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let answer;
  try {
    const [tex, display] = JSON.parse(line);
    const mathml = temml.renderToString(tex, {
      displayMode: Boolean(display),
      throwOnError: true,
      trust: false,
      strict: false,
      annotate: false,
      xml: false,
      macros: { ...macros },
    });
    answer = { mathml };
  } catch (error) {
    // Temml's own errors say what is wrong; anything else is a formula it misread (seen:
    // "x^" at the end of a formula), said in words rather than as a JavaScript TypeError.
    answer =
      error instanceof temml.ParseError
        ? { error: String(error.rawMessage || error.message) }
        : { error: "Temml could not read it: look for a ^, _ or command without its argument" };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
