// "Today" for the calculators whose answers depend on it (years left on a lease, days to a deadline, the last
// 90 days of exchange rates). Tests set it so that expected answers do not drift: clock.today = () => day("2026-01-15").
import { todayUtc } from "../../engine/dates.ts";

export const clock = {
  today: (): Date => todayUtc(),
};
