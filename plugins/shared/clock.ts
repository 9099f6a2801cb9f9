// The engine's clock: a test that sets clock.today moves the parameter bounds and the calculators together.
export { clock } from "../../engine/basics/clock.ts";
