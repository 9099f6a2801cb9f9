// Debian's chromium driven by playwright-core, for the tests of pages a person opens; a suite skips (and says why)
// on a machine without it.
import fs from "node:fs";
import { chromium, type Browser } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The browser, or undefined after skipping the suite (call it first in a `before` with `this`). */
export async function launchChromium(suite: Mocha.Context): Promise<Browser | undefined> {
  if (!fs.existsSync(CHROMIUM)) {
    console.warn(`    (skipped: no Chromium at ${CHROMIUM}; apt-get install chromium)`);
    suite.skip();
    return undefined;
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true, // playwright also gives it a new empty user-data-dir
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
