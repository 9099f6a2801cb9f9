// "Now" and "today" wherever the engine uses them: date parameters' bounds and defaults ("today-90d"), $today in
// transforms and {= } templates, JSONata's own $now() and $millis() (bound over the built-ins), and the calculators
// whose answers depend on the day. Tests set them so that expected answers do not drift:
// clock.today = () => day("2026-01-15"); an endpoint example may state `today: 2026-01-15` or `now: 2026-01-15T18:00:00Z`.
import jsonata from "jsonata";
import { todayUtc } from "./dates.ts";

export const clock = {
  now: (): Date => new Date(),
  today: (): Date => todayUtc(clock.now()),
};

const formatted = jsonata("$fromMillis(ms, picture, zone)");

/** $now([picture [, timezone]]) and $millis() on the engine's clock, for the bindings of every expression. */
export const clockFunctions = {
  now: (picture?: string, zone?: string) => (picture === undefined ? clock.now().toISOString() : formatted.evaluate({ ms: clock.now().getTime(), picture, zone })),
  millis: () => clock.now().getTime(),
};
