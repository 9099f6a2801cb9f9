import jsonata from "jsonata";
for (const v of [[[{a:1},{a:2}]], [[{a:1}],[{a:2},{a:3}]], [[]]]) {
  console.log(JSON.stringify(await jsonata("[$reduce($, $append, [])]").evaluate(v)), JSON.stringify(await jsonata("[$.$]").evaluate(v)));
}
console.log(JSON.stringify(await jsonata("($last := $number($substring(to, 0, 4)); [$max([$number($substring(from, 0, 4)), $last - 4])..$last])").evaluate({from:"2019-01-01", to:"2026-02-01"})));
console.log(JSON.stringify(await jsonata("($last := $number($substring(to, 0, 4)); [$max([$number($substring(from, 0, 4)), $last - 4])..$last])").evaluate({from:"2026-01-01", to:"2026-02-01"})));
