import jsonata from "jsonata";
const e = String.raw`$contains($, /^(?!\s*(?:[\[\{"]|<[?!]|<html|null\s*$))[^\n]*\S[^\n]*\n?$/i)`;
const x = jsonata(e);
for (const v of ["Wang, Q. (2014). <i>x</i>.\n", "{\"a\":1}", "[1]", "<html>x</html>", "<?xml x", "null", "a\nb", "  ", "\"q\""]) console.log(JSON.stringify(v), await x.evaluate(v));
