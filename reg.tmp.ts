import path from "node:path";
import { loadRegistry } from "./engine/endpoints/registry.ts";
try { await loadRegistry({ rootDir: process.cwd(), endpointsDir: path.join(process.cwd(), "endpoints") }); console.log("ok"); } catch (e) { console.log((e as Error).message); }
