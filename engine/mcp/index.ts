// The MCP server at /mcp. Filled in by the MCP issue.
import type { Express } from "express";
import type { Engine } from "../engine.ts";

export function mountMcp(_app: Express, _engine: Engine): void {}
