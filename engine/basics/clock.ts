// "Now" and "today" wherever the engine uses them: date parameters' bounds and defaults ("today-90d"), $today in
// transforms and {= } templates, JSONata's own $now() and $millis() (bound over the built-ins), and the calculators
// whose answers depend on the day. Tests set them so that expected answers do not drift:
// clock.today = () => day("2026-01-15"); an endpoint example may state `today: 2026-01-15` or `now: 2026-01-15T18:00:00Z`.
// One call may run on a clock of its own (withClock: a test-mode call runs on its example's day); every other call,
// running at the same moment, keeps the real one.
import { AsyncLocalStorage } from "node:async_hooks";
import jsonata from "jsonata";
import { todayUtc } from "./dates.ts";

/** A call's own clock: the instant and/or the day it runs at. */
export interface CallClock {
  now?: Date;
  today?: Date;
}

const callClock = new AsyncLocalStorage<CallClock>();

export const clock = {
  now: (): Date => callClock.getStore()?.now ?? new Date(),
  today: (): Date => callClock.getStore()?.today ?? todayUtc(clock.now()),
};

/** Runs fn (and everything it awaits) on the given clock; calls outside it are not affected. */
export function withClock<T>(at: CallClock, fn: () => T): T {
  return callClock.run(at, fn);
}

const formatted = jsonata("$fromMillis(ms, picture, zone)");

/** $now([picture [, timezone]]) and $millis() on the engine's clock, for the bindings of every expression. */
export const clockFunctions = {
  now: (picture?: string, zone?: string) => (picture === undefined ? clock.now().toISOString() : formatted.evaluate({ ms: clock.now().getTime(), picture, zone })),
  millis: () => clock.now().getTime(),
};
