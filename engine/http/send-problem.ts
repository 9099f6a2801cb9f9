// Every HTTP error answer: the problem's status, headers and RFC 9457 body.
import type { Response } from "express";
import type { Problem } from "../basics/problem.ts";

export function sendProblem(res: Response, problem: Problem, instance?: string): void {
  res.status(problem.status).set(problem.headers).type("application/problem+json").send(JSON.stringify(problem.body(instance)));
}
