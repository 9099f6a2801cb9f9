// uk-disputes: known answers (a date in, deadlines out) with "today" fixed, every rule cited and dated, the
// directory's matching, and the "information, not legal advice" notice on every answer.
import assert from "node:assert/strict";
import { day } from "../shared/calendar.ts";
import { clock } from "../shared/clock.ts";
import { addWorkingDays, COUNCILS, findCouncil, RULES } from "./index.ts";
import { getJson, freeAccess, useTestServer } from "../../test/support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

describe("uk-disputes rules file", () => {
  it("names an official page and a checked date for every rule", () => {
    for (const [key, r] of Object.entries(RULES.rules)) {
      assert.match(r.source, /^https?:\/\//, key);
      assert.match(r.checked, /^\d{4}-\d{2}-\d{2}$/, key);
      assert.equal(typeof r.verified, "boolean", key);
      assert.ok(r.text.length > 20, key);
    }
  });

  it("counts working days past weekends and England and Wales bank holidays", () => {
    // 19 Dec 2025 (Fri) + 10 working days: 25, 26 Dec and 1 Jan are holidays.
    assert.equal(addWorkingDays(day("2025-12-19"), 10).toISOString().slice(0, 10), "2026-01-07");
    assert.equal(addWorkingDays(day("2025-06-02"), 10).toISOString().slice(0, 10), "2025-06-16");
  });

  it("finds councils by their everyday names and flags London", () => {
    assert.equal(COUNCILS.filter((c) => c.london).length, 33);
    assert.equal(findCouncil("Westminster City Council")?.code, "E09000033");
    assert.equal(findCouncil("Royal Borough of Kensington and Chelsea")?.london, true);
    assert.equal(findCouncil("City of London Corporation")?.code, "E09000001");
    assert.equal(findCouncil("Swansea Council")?.nation, "wales");
    assert.equal(findCouncil("Leeds City Council")?.london, false);
    assert.equal(findCouncil("Nowhere Parish"), undefined);
  });
});

describe("uk-disputes endpoints with today fixed at 2025-06-10", () => {
  let server: Running;
  const realToday = clock.today;
  useTestServer({ access: freeAccess }, (s) => (server = s));
  before(() => {
    clock.today = () => day("2025-06-10");
  });
  after(() => {
    clock.today = realToday;
  });
  const get = async (url: string) => {
    const res = await getJson(`${server.url}${url}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.data.legal_notice, /^Information, not legal advice/);
    return res.body.data;
  };
  const at = (data: { deadlines: { key: string }[] }, key: string) => data.deadlines.find((d) => d.key === key) as unknown as { date: string; days_left: number; passed: boolean; rule: { source: string; checked: string } };

  it("energy: ombudsman from 8 weeks after the complaint, days left from today", async () => {
    const d = await get("/v1/uk-disputes/energy-complaint?complained_on=2025-05-01");
    assert.equal(at(d, "ombudsman_opens").date, "2025-06-26");
    assert.equal(at(d, "ombudsman_opens").days_left, 16);
    assert.equal(at(d, "ombudsman_last_day").date, "2026-06-26");
    assert.match(d.next_step, /from 2025-06-26/);
    assert.match(at(d, "ombudsman_opens").rule.source, /^https:/);
  });

  it("energy: a bill within 12 months is not back-billed", async () => {
    const d = await get("/v1/uk-disputes/energy-complaint?bill_date=2025-05-01&charges_from=2024-09-01");
    assert.equal(d.back_billing.applies, false);
    assert.equal(d.back_billing.cutoff_date, "2024-05-01");
  });

  it("telecoms: 8 weeks before 8 April 2026", async () => {
    const d = await get("/v1/uk-disputes/telecoms-complaint?complained_on=2025-03-01");
    assert.equal(at(d, "adr_opens").date, "2025-04-26");
    assert.equal(at(d, "adr_opens").passed, true);
    assert.match(d.next_step, /now/);
  });

  it("water: the reply is due 10 working days later", async () => {
    const d = await get("/v1/uk-disputes/water-complaint?complained_on=2025-06-02");
    assert.equal(at(d, "company_reply_due").date, "2025-06-16");
  });

  it("council PCN: discount still open today, next step says pay or challenge by then", async () => {
    const d = await get("/v1/uk-disputes/parking-appeal?type=council&issued_on=2025-06-02&issuer=Westminster");
    assert.equal(at(d, "discount_ends").date, "2025-06-15");
    assert.equal(at(d, "discount_ends").days_left, 5);
    assert.equal(d.tribunal.id, "london-tribunals");
    assert.match(d.next_step, /2025-06-15/);
    assert.ok(d.grounds.some((g: { key: string }) => g.key === "procedural_impropriety"));
  });

  it("council PCN: a lapsed discount points to representations and the tribunal", async () => {
    const d = await get("/v1/uk-disputes/parking-appeal?type=council&issued_on=2025-04-01&issuer=Leeds");
    assert.equal(at(d, "discount_ends").passed, true);
    assert.match(d.next_step, /Traffic Penalty Tribunal/);
  });

  it("private charge: IAS operator gets the IAS 12-month limit", async () => {
    const d = await get("/v1/uk-disputes/parking-appeal?type=private&issued_on=2025-06-02&issuer=Excel%20Parking");
    assert.equal(d.appeals_service.id, "ias");
    assert.equal(at(d, "ias_last_day").date, "2026-06-02");
  });

  it("consumer charge: a £12,000 job is past small claims but within section 75", async () => {
    const d = await get("/v1/uk-disputes/consumer-charge?category=tradesperson&amount=12000&complained_on=2025-06-10");
    assert.equal(at(d, "reply_due").date, "2025-06-24");
    assert.equal(d.court.small_claims, false);
    assert.equal(d.card_protection.section_75.eligible, true);
  });
});
