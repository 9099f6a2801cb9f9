// Routes of the access layer (/free, /account, /credit). Filled in by the access issue.
import type { Express } from "express";
import type { Engine } from "../engine.ts";

export function mountAccessRoutes(_app: Express, _engine: Engine): void {}
