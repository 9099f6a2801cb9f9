// JSON-stat 2.0 (https://json-stat.org/format/) decoded into plain rows: one row per cell that has a value or a
// status, with the category code of every dimension. The flat index of `value` is row-major over `size`: the
// last dimension in `id` varies fastest. `value` and `status` may be arrays (dense) or objects keyed by the flat
// index (sparse, as Eurostat sends them); `status` may also be one string for every cell; a dimension's
// `category.index` may be an array of codes or an object code -> position, and is absent for one category.

type Dict = Record<string, unknown>;

export interface JsonStatRow {
  [dimension: string]: string | number | null;
}

function isDict(v: unknown): v is Dict {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The category codes of one dimension, in index order. */
function categoryCodes(dimension: unknown, size: number, name: string): string[] {
  const category = isDict(dimension) && isDict(dimension.category) ? dimension.category : undefined;
  if (!category) throw new Error(`JSON-stat dimension "${name}" has no category`);
  const codes: string[] = new Array(size);
  if (Array.isArray(category.index)) {
    category.index.forEach((code, i) => (codes[i] = String(code)));
  } else if (isDict(category.index)) {
    for (const [code, pos] of Object.entries(category.index)) codes[Number(pos)] = code;
  } else if (isDict(category.label) && Object.keys(category.label).length === 1) {
    codes[0] = Object.keys(category.label)[0];
  } else {
    throw new Error(`JSON-stat dimension "${name}" has no category index`);
  }
  if (codes.length !== size || Array.from(codes).some((c) => c === undefined)) throw new Error(`JSON-stat dimension "${name}" does not have ${size} categories`);
  return codes;
}

/** The cells present in a dense array or a sparse object, as [flat index, item]. */
function cells(v: unknown): Map<number, unknown> {
  const out = new Map<number, unknown>();
  if (Array.isArray(v)) v.forEach((x, i) => x !== null && x !== undefined && out.set(i, x));
  else if (isDict(v)) for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined && /^\d+$/.test(k)) out.set(Number(k), x);
  return out;
}

export function jsonstatRows(doc: unknown): JsonStatRow[] {
  if (!isDict(doc) || !Array.isArray(doc.id) || !Array.isArray(doc.size) || !isDict(doc.dimension)) {
    throw new Error("not a JSON-stat 2.0 dataset (id, size and dimension are required)");
  }
  const ids = doc.id.map(String);
  const sizes = doc.size.map(Number);
  if (ids.length !== sizes.length || sizes.some((s) => !Number.isInteger(s) || s < 0)) throw new Error("JSON-stat id and size do not match");
  const dims = doc.dimension;
  const codes = ids.map((id, d) => categoryCodes(dims[id], sizes[d], id));
  const total = sizes.reduce((a, b) => a * b, 1);

  const values = cells(doc.value);
  const statusAll = typeof doc.status === "string" ? doc.status : undefined;
  const statuses = statusAll === undefined ? cells(doc.status) : new Map<number, unknown>();
  const positions = [...new Set([...values.keys(), ...statuses.keys()])].filter((i) => i < total).sort((a, b) => a - b);

  return positions.map((flat) => {
    const row: JsonStatRow = {};
    let rest = flat;
    for (let d = ids.length - 1; d >= 0; d--) {
      row[ids[d]] = codes[d][rest % sizes[d]];
      rest = Math.floor(rest / sizes[d]);
    }
    const ordered: JsonStatRow = {};
    for (const id of ids) ordered[id] = row[id];
    const v = values.get(flat);
    ordered.value = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : null;
    const s = statusAll ?? statuses.get(flat);
    ordered.status = s === undefined || s === null || s === "" ? null : String(s);
    return ordered;
  });
}
