// What an endpoint example's recorded upstream answers need on the serving path (test mode) and in development
// (the example replay through nock, engine/cli/example-replay.ts): where a fixture file is, the content type it is
// served with, and the stand-in credentials the examples' requests are written with.
import path from "node:path";
import { credentialVars, type Source } from "../upstream/sources.ts";
import type { Fixture } from "../endpoints/model.ts";

/**
 * A recorded upstream answer: `<file>` in the group's own endpoints/<group>/fixtures/, or `<group>:<file>` in
 * another group's (the group whose upstream it is keeps it; others name it so).
 */
export function fixtureFile(rootDir: string, ref: string, group?: string): string {
  const named = /^([a-z0-9-]+):(.+)$/.exec(ref);
  const owner = named ? named[1] : group;
  if (!owner) throw new Error(`fixture "${ref}": say whose it is, as <group>:<file>`);
  return path.join(rootDir, "endpoints", owner, "fixtures", named ? named[2] : ref);
}

const FORMAT_TYPES: Record<string, string> = { csv: "application/csv", json: "application/json", xml: "application/xml", html: "text/html", txt: "text/plain" };

/** The content type a fixture is served with: its own, else by its file's extension. */
export const fixtureContentType = (f: Fixture): string => f.content_type ?? FORMAT_TYPES[path.extname(f.file).slice(1)] ?? "application/octet-stream";

/** The stand-in value of every credential variable the sources name: "test-<variable lower-cased>". */
export function standInCredentials(sources: Iterable<Source>): Record<string, string> {
  const vars = [...sources].flatMap((s) => [...credentialVars(s), ...Object.values(s.query_env ?? {}).map((q) => q.env)]);
  return Object.fromEntries(vars.map((v) => [v, `test-${v.toLowerCase()}`]));
}

export { standInToken } from "../upstream/oauth2.ts";
