// Which pipeline answers a call: a test key's (pda_test_…) is answered from the endpoint's examples (call.ts,
// docs/test-mode.md), every other one live (engine/call/pipeline.ts). The HTTP routes and the MCP tools call here.
import { isTestKey } from "../access/keys.ts";
import { runCall, type CallInput, type CallResult } from "../call/pipeline.ts";
import type { Engine } from "../engine.ts";
import { runTestCall } from "./call.ts";

export function answerCall(engine: Engine, input: CallInput): Promise<CallResult> {
  return isTestKey(input.apiKey) ? runTestCall(engine, input) : runCall(engine, input);
}
