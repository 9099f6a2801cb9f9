// A big library loaded when a call first needs it, not at start-up: most processes never call the endpoints that
// use it, and each costs start-up time and memory. require() is synchronous (of an ES module too, Node >= 22.12),
// so a plugin's functions stay synchronous: `const phone = lazy<typeof import("libphonenumber-js/max")>("libphonenumber-js/max")`,
// then `phone().parsePhoneNumberFromString(...)`. What require answers is the module itself: for a CommonJS module
// that is what a default import gives (`lazy<typeof import("turndown").default>("turndown")`).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export function lazy<T>(name: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= require(name) as T);
}
