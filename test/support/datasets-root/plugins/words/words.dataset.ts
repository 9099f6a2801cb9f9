// A small dataset for test/datasets/mechanism.test.ts (a load runs on a worker thread, which imports its definition from a
// file): words.csv, one word a line, and an optional lists/extra.csv counted apart. A line "BAD" fails the load.
import type { DatasetDefinition } from "../../../../../engine/datasets/types.ts";

const words: DatasetDefinition<Set<string>> = {
  name: "words",
  title: "Test words",
  folder: "words",
  source: "demo",
  files: [{ name: "words.csv", path: "/export/words.csv" }, { name: "lists/extra.csv", path: "/export/extra.csv", optional: true }],
  refresh: "1d",
  licence: "test",
  attribution: "test",
  maxBytes: 1_000,
  async load(input, db) {
    db.exec("CREATE TABLE words (word TEXT NOT NULL)");
    const insert = db.prepare("INSERT INTO words VALUES (?)");
    const counts: Record<string, number> = {};
    db.exec("BEGIN");
    for (const f of input.files) {
      const kind = f === "words.csv" ? "words" : "extra";
      counts[kind] = 0;
      for (const w of (await input.text(f)).split("\n").filter(Boolean)) {
        if (w === "BAD") throw new Error("a bad word");
        insert.run(w);
        counts[kind]++;
      }
    }
    db.exec("COMMIT");
    return { counts, dataDates: { list: "2026-01-01" } };
  },
  index(db) {
    return new Set((db.prepare("SELECT word FROM words").all() as { word: string }[]).map((r) => r.word));
  },
};

export default words;
