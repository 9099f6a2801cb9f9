// "Today" wherever the engine uses it: date parameters' bounds and defaults ("today-90d"), $today in transforms and
// {= } templates, and the calculators whose answers depend on it. Tests set it so that expected answers do not
// drift: clock.today = () => day("2026-01-15"); an endpoint example may state `today: 2026-01-15`.
import { todayUtc } from "./dates.ts";

export const clock = {
  today: (): Date => todayUtc(),
};
