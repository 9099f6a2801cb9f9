// uk-property lease-length and estate-deadlines: known answers for a given lease and a given death, with
// "today" set so they do not drift, and bad input for every parameter.
import assert from "node:assert/strict";
import { assessLease } from "./lease.ts";
import { estateDeadlines, nilRateBand } from "./estate.ts";
import { day } from "../shared/calendar.ts";
import { clock } from "../shared/clock.ts";
import { getJson, freeAccess, useTestServer } from "../../test/support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

describe("lease length", () => {
  const today = day("2026-01-01");

  it("ends a 99-year lease from 1 January 2000 on 31 December 2098, with 73 years left on 1 January 2026: red", () => {
    const a = assessLease(day("2000-01-01"), 99, today);
    assert.equal(a.expiry_date, "2098-12-31");
    assert.deepEqual(a.remaining, { years: 73, months: 0, days: 0 });
    assert.equal(a.years_remaining, 73);
    assert.equal(a.eighty_years_left_on, "2019-01-01");
    assert.equal(a.rating, "red");
    assert.match(a.reason, /80 years or less/);
  });

  it("rates a lease between 80 and 90 years amber, naming the day it reaches 80", () => {
    const a = assessLease(day("2020-01-01"), 90, today);
    assert.deepEqual(a.remaining, { years: 84, months: 0, days: 0 });
    assert.equal(a.rating, "amber");
    assert.equal(a.eighty_years_left_on, "2030-01-01");
    assert.match(a.reason, /reaches on 2030-01-01/);
  });

  it("rates a 125-year lease from 24 June 2010 green, with 109 years, 5 months and 23 days left", () => {
    const a = assessLease(day("2010-06-24"), 125, today);
    assert.equal(a.expiry_date, "2135-06-23");
    assert.deepEqual(a.remaining, { years: 109, months: 5, days: 23 });
    assert.equal(a.rating, "green");
  });

  it("is red with exactly 80 years left, and amber a day before", () => {
    assert.equal(assessLease(day("2026-01-01"), 80, today).rating, "red");
    assert.equal(assessLease(day("2026-01-02"), 80, today).rating, "red"); // not started: the whole 80 years are left
    assert.equal(assessLease(day("2025-12-31"), 81, today).rating, "amber");
  });

  it("says when the term has ended", () => {
    const a = assessLease(day("1900-03-25"), 99, today);
    assert.equal(a.expiry_date, "1999-03-24");
    assert.equal(a.expired, true);
    assert.equal(a.years_remaining, 0);
    assert.equal(a.rating, "red");
  });

  it("takes 1 March as the anniversary of 29 February", () => {
    assert.equal(assessLease(day("2000-02-29"), 99, today).expiry_date, "2099-02-28");
    assert.equal(assessLease(day("2000-02-29"), 4, today).expiry_date, "2004-02-28");
  });
});

describe("estate deadlines", () => {
  const today = day("2025-03-01");

  it("computes the deadlines after a death on 15 January 2025", () => {
    const r = estateDeadlines({ dateOfDeath: day("2025-01-15") }, today);
    const dates = Object.fromEntries(r.deadlines.map((d) => [d.key, d.date]));
    assert.deepEqual(dates, { iht_payment_due: "2025-07-31", executors_year: "2026-01-15", iht_account_due: "2026-01-31" });
    assert.equal(r.deadlines[0].days_left, 152);
    assert.equal(r.deadlines[0].passed, false);
    assert.deepEqual(r.needs_input.map((n) => n.needs), ["grant_date", "notice_claim_date", "gross_estate"]);
    assert.match(r.deadlines.find((d) => d.key === "iht_payment_due")!.basis, /Inheritance Tax Act 1984, s\.226/);
  });

  it("takes the end of the month for a death at the end of August", () => {
    const r = estateDeadlines({ dateOfDeath: day("2024-08-31"), grantDate: day("2024-08-31") }, today);
    const dates = Object.fromEntries(r.deadlines.map((d) => [d.key, d.date]));
    assert.equal(dates.iht_payment_due, "2025-02-28");
    assert.equal(dates.inheritance_act_claims, "2025-02-28");
    // On 1 March 2025 that deadline has passed.
    assert.equal(r.deadlines.find((d) => d.key === "iht_payment_due")!.passed, true);
    assert.equal(r.deadlines.find((d) => d.key === "iht_payment_due")!.days_left, 0);
  });

  it("computes the claims and creditors' periods without a date of death", () => {
    const r = estateDeadlines({ grantDate: day("2025-06-10"), noticeDate: day("2025-08-31") }, today);
    assert.deepEqual(r.deadlines.map((d) => [d.key, d.date]), [["creditor_claims", "2025-10-31"], ["inheritance_act_claims", "2025-12-10"]]);
    assert.deepEqual(r.needs_input.map((n) => n.key), ["iht_payment_due", "iht_account_due", "executors_year", "nil_rate_band"]);
  });

  it("reads the estate against the nil-rate bands of the date of death", () => {
    assert.equal(nilRateBand(300_000, "2025-01-15")!.likely, "below_nil_rate_band");
    assert.equal(nilRateBand(450_000, "2025-01-15")!.likely, "within_bands_with_residence_band");
    assert.equal(nilRateBand(900_000, "2025-01-15")!.likely, "within_bands_with_transferred_bands");
    assert.equal(nilRateBand(1_200_000, "2025-01-15")!.likely, "above_available_bands");
    assert.equal(nilRateBand(400_000, "2016-05-01")!.residence_nil_rate_band, 0);
    assert.equal(nilRateBand(400_000, "2008-05-01")!.nil_rate_band, 312_000);
    assert.equal(nilRateBand(400_000, "2001-05-01"), undefined);
  });
});

describe("uk-property endpoints", () => {
  let server: Running;
  const realToday = clock.today;
  useTestServer({ access: freeAccess }, (s) => (server = s));
  before(() => {
    clock.today = () => day("2026-01-01");
  });
  after(() => {
    clock.today = realToday;
  });
  const get = (url: string) => getJson(`${server.url}${url}`);

  it("lease-length answers as of today, with the disclaimer", async () => {
    const res = await get("/v1/uk-property/lease-length?lease_start=2000-01-01&term_years=99");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.as_of, "2026-01-01");
    assert.equal(res.body.data.years_remaining, 73);
    assert.match(res.body.meta.disclaimers.join(" "), /not legal advice/);
  });

  it("estate-deadlines counts the days left from today", async () => {
    const res = await get("/v1/uk-property/estate-deadlines?grant_date=2025-12-01");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.deadlines[0].date, "2026-06-01");
    assert.equal(res.body.data.deadlines[0].days_left, 151);
  });

  describe("refuses bad input with 400 naming the parameter", () => {
    const cases: [string, string, RegExp][] = [
      ["/v1/uk-property/lease-length?term_years=99", "lease_start", /lease_start is required/],
      ["/v1/uk-property/lease-length?lease_start=2000-13-01&term_years=99", "lease_start", /YYYY-MM-DD/],
      ["/v1/uk-property/lease-length?lease_start=2000-01-01", "term_years", /term_years is required/],
      ["/v1/uk-property/lease-length?lease_start=2000-01-01&term_years=99.5", "term_years", /whole number from 1 to 9999/],
      ["/v1/uk-property/lease-length?lease_start=2000-01-01&term_years=10000", "term_years", /from 1 to 9999/],
      ["/v1/uk-property/estate-deadlines", "date_of_death", /at least one of/],
      ["/v1/uk-property/estate-deadlines?date_of_death=15/01/2025", "date_of_death", /YYYY-MM-DD/],
      ["/v1/uk-property/estate-deadlines?date_of_death=2026-01-02", "date_of_death", /2026-01-01 or earlier/],
      ["/v1/uk-property/estate-deadlines?grant_date=2025-02-29", "grant_date", /does not exist/],
      ["/v1/uk-property/estate-deadlines?date_of_death=2025-01-15&grant_date=2025-01-14", "grant_date", /before date_of_death/],
      ["/v1/uk-property/estate-deadlines?notice_claim_date=soon", "notice_claim_date", /YYYY-MM-DD/],
      ["/v1/uk-property/estate-deadlines?date_of_death=2025-01-15&notice_claim_date=2024-12-01", "notice_claim_date", /before date_of_death/],
      ["/v1/uk-property/estate-deadlines?gross_estate=-1", "gross_estate", /from 0/],
      ["/v1/uk-property/estate-deadlines?gross_estate=1.5m", "gross_estate", /whole number/],
    ];
    for (const [url, param, detail] of cases) {
      it(url.replace("/v1/uk-property/", ""), async () => {
        const res = await get(url);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.param, param);
        assert.match(res.body.detail, detail);
      });
    }
  });
});
