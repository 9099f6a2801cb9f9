// Upstream bodies to JSON before the transform: CSV rows become objects (or arrays), XML becomes a tree.
import { parse as parseCsv } from "csv-parse/sync";
import { XMLParser } from "fast-xml-parser";

export type BodyFormat = "json" | "csv" | "xml" | "text";
export interface CsvOptions { header?: boolean; skip_lines?: number; delimiter?: string }

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", parseTagValue: false, trimValues: true });

export function parseBody(text: string, format: BodyFormat, csv: CsvOptions = {}): unknown {
  switch (format) {
    case "json":
      return JSON.parse(text);
    case "csv":
      return parseCsv(text, {
        columns: csv.header !== false,
        from_line: (csv.skip_lines ?? 0) + 1,
        delimiter: csv.delimiter ?? ",",
        skip_empty_lines: true,
        relax_column_count: true,
        relax_quotes: true,
        bom: true,
        trim: true,
      });
    case "xml": {
      if (!/^\s*(<\?xml|<[A-Za-z])/.test(text)) throw new Error("the body is not XML");
      return xml.parse(text, true);
    }
    case "text":
      return text;
  }
}
