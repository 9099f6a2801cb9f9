// "Today" for parameter bounds (a date no later than today) and the calculators whose answers depend on it.
// Tests set it so that expected answers do not drift: clock.today = () => day("2026-01-15").
import { todayUtc } from "./dates.ts";

export const clock = {
  today: (): Date => todayUtc(),
};
