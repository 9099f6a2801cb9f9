// Declared paging (`paging:` in an endpoint file): the endpoint's `page` (from 1) and `limit` become the upstream's
// own query names, and the answer says which page it is, the upstream's total and the parameters of the next page.
import jsonata from "jsonata";
import type { ParamValues } from "./params.ts";

export interface PagingSpec {
  page?: string;
  first_page?: 0 | 1;
  offset?: string;
  limit: string;
  total: string;
}

export interface Paging {
  spec: PagingSpec;
  total: jsonata.Expression;
}

export function compilePaging(spec: PagingSpec | undefined, params: Record<string, unknown>): Paging | undefined {
  if (!spec) return undefined;
  for (const name of ["page", "limit"]) if (!(name in params)) throw new Error(`paging: the endpoint must declare a \`${name}\` parameter`);
  if (!spec.page === !spec.offset) throw new Error("paging: give the upstream's name for either the page (page) or the offset (offset)");
  return { spec, total: jsonata(spec.total) };
}

/** The upstream query the paging adds to the last step. */
export function pagingQuery(paging: Paging, params: ParamValues): Record<string, string> {
  const page = params.page as number;
  const limit = params.limit as number;
  const { spec } = paging;
  return {
    [spec.limit]: String(limit),
    ...(spec.page ? { [spec.page]: String(page - 1 + (spec.first_page ?? 1)) } : { [spec.offset!]: String((page - 1) * limit) }),
  };
}

/** The answer with page, total and next, read from the upstream body. */
export async function withPaging(paging: Paging, data: unknown, body: unknown, params: ParamValues): Promise<unknown> {
  if (!data || typeof data !== "object" || Array.isArray(data)) return data;
  const page = params.page as number;
  const limit = params.limit as number;
  const raw = await paging.total.evaluate(body);
  const total = typeof raw === "number" ? raw : typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : null;
  const next = total === null ? null : page * limit < total ? { page: page + 1, limit } : null;
  return { ...(data as Record<string, unknown>), page, total, next };
}
