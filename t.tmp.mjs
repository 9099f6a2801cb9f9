import jsonata from "jsonata";
console.log(await jsonata('$eval("$params.a + x", {"x": 2})').evaluate({}, { params: { a: 1 } }));
console.log(JSON.stringify(await jsonata('{"a": []}.a').evaluate({})));
console.log(JSON.stringify(await jsonata('$join($distinct($split("1, 2,1", ",").$trim($)), ",")').evaluate({})));
console.log(JSON.stringify(await jsonata('$join($distinct($split("1", ",").$trim($)), ",")').evaluate({})));
