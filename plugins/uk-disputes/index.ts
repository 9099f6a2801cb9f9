// UK consumer disputes: rules, not upstreams. Every deadline is computed from the dates given with a rule of
// rules.json (each rule names the page that states it and the day it was checked); organisations and their
// complaint schemes come from directory.json and councils.json (OS Code-Point Open code list). Information, not
// legal advice.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { badParam, Problem } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { addDays, addMonths, day, daysBetween, isoDay, isWeekend } from "../shared/calendar.ts";
import { clock } from "../shared/clock.ts";
import { ruleHolidays } from "../shared/bank-holidays.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const load = (f: string) => JSON.parse(fs.readFileSync(path.join(here, f), "utf8"));

interface Rule { text: string; source: string; also?: string; law?: string; checked: string; verified: boolean; note?: string; [k: string]: unknown }
interface Scheme { name: string; url: string; rules: string }
interface Organisation { name: string; sector: string; scheme: string; website: string; aliases: string[]; source?: string; london?: boolean }
interface Council { code: string; name: string; kind: string; nation: string; london: boolean }

export const RULES: { checked: string; rules: Record<string, Rule> } = load("rules.json");
export const DIRECTORY: { checked: string; note: string; schemes: Record<string, Scheme>; organisations: Organisation[] } = load("directory.json");
export const COUNCILS: Council[] = load("councils.json");

const NOTICE = "Information, not legal advice: the usual rules applied to the dates you gave. Check the letters you received, and take advice (Citizens Advice, a solicitor) before relying on a date.";

const rule = (key: string): Rule => {
  const r = RULES.rules[key];
  if (!r) throw new Error(`rules.json has no rule ${key}`);
  return r;
};
const num = (key: string, field: string) => rule(key)[field] as number;
const cite = (key: string) => {
  const r = rule(key);
  return { rule: key, text: r.text, source: r.source, law: r.law ?? null, checked: r.checked, verified: r.verified };
};

interface Deadline { key: string; title: string; date: string; days_left: number; passed: boolean; rule: ReturnType<typeof cite> }

function deadline(key: string, title: string, date: Date, ruleKey: string): Deadline {
  const left = daysBetween(clock.today(), date);
  return { key, title, date: isoDay(date), days_left: left, passed: left < 0, rule: cite(ruleKey) };
}

const optDay = (ctx: PluginContext, name: string) => (ctx.params[name] === undefined ? undefined : day(ctx.params[name] as string));

function notFuture(ctx: PluginContext, ...names: string[]) {
  for (const n of names) {
    const d = optDay(ctx, n);
    if (d && d > clock.today()) throw badParam(n, `${n} cannot be in the future (got ${ctx.params[n]}).`);
  }
}

/** The day `n` working days (not weekends or England and Wales bank holidays) after `from`. */
export function addWorkingDays(from: Date, n: number): Date {
  let d = from;
  let left = n;
  while (left > 0) {
    d = addDays(d, 1);
    const iso = isoDay(d);
    if (!isWeekend(d) && !ruleHolidays("england-and-wales", d.getUTCFullYear()).some((h) => h.date === iso)) left--;
  }
  return d;
}

// --- directory ---------------------------------------------------------------------------------------------------

const STOP = new Set(["council", "borough", "royal", "county", "district", "metropolitan", "london", "of", "the", "city", "ltd", "limited", "plc", "uk", "services", "group"]);
const norm = (s: string) => s.toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/[^a-z0-9]+/g, " ").trim();
const core = (s: string) => norm(s).split(" ").filter((w) => w && !STOP.has(w)).join(" ");

function findOrganisation(name: string): Organisation | undefined {
  const n = norm(name);
  const c = core(name);
  return DIRECTORY.organisations.find((o) => [o.name, ...o.aliases].some((a) => norm(a) === n))
    ?? DIRECTORY.organisations.find((o) => [o.name, ...o.aliases].some((a) => core(a) !== "" && core(a) === c));
}

export function findCouncil(name: string): Council | undefined {
  const n = norm(name);
  if (/\bcity of london\b|\bcorporation of london\b/.test(n)) return COUNCILS.find((c) => c.code === "E09000001");
  const c = core(name);
  if (c === "") return undefined;
  return COUNCILS.find((k) => core(k.name) === c || k.name.split(" - ").some((part) => core(part) === c));
}

const schemeOf = (o: Organisation) => ({ id: o.scheme, ...DIRECTORY.schemes[o.scheme] });

function organisationAnswer(o: Organisation) {
  return { name: o.name, sector: o.sector, website: o.website, scheme: schemeOf(o), london: o.london ?? null, source: o.source ?? null };
}

function councilAnswer(c: Council) {
  const scheme = c.nation === "scotland" ? null : c.london ? "london-tribunals" : "traffic-penalty-tribunal";
  return { name: c.name, code: c.code, sector: "council", kind: c.kind, nation: c.nation, london: c.london,
    scheme: scheme ? { id: scheme, ...DIRECTORY.schemes[scheme] } : { id: "housing-and-property-chamber", name: "Housing and Property Chamber (parking and bus lane appeals)", url: "https://www.mygov.scot/parking-appeals/how-to-appeal", rules: "council_pcn.scotland" } };
}

export function complaintsContact(ctx: PluginContext) {
  const name = ctx.params.organisation as string;
  const o = findOrganisation(name);
  if (o) return { query: { organisation: name }, organisation: organisationAnswer(o), next_step: nextStepFor(o.sector), legal_notice: NOTICE };
  const c = findCouncil(name);
  if (c) return { query: { organisation: name }, organisation: councilAnswer(c), next_step: nextStepFor("council"), legal_notice: NOTICE };
  throw new Problem({ status: 404, code: "not_found", param: "organisation", detail: `organisation: "${name}" is not in the directory (energy suppliers, telecoms providers, water companies, private parking operators, councils). See uk-disputes/organisations for what it covers.` });
}

function nextStepFor(sector: string): string {
  switch (sector) {
    case "energy": return "Complain to the supplier in writing and keep the date; after its deadlock letter or 8 weeks, go to the Energy Ombudsman (energy-complaint computes the dates).";
    case "telecoms": return "Complain to the provider and keep the date; after its deadlock letter or the waiting period, go to its ADR scheme (telecoms-complaint computes the dates).";
    case "water": return "Complain to the water company in writing; if its final answer does not settle it, refer it to CCW, then WATRS (water-complaint computes the dates).";
    case "private-parking": return "Appeal to the operator first; if it rejects the appeal, go to the independent scheme its letter names (parking-appeal computes the dates).";
    default: return "Challenge the PCN with the council; if it rejects your formal representations, appeal to the tribunal (parking-appeal computes the dates).";
  }
}

export function organisations() {
  const bySector = new Map<string, number>();
  for (const o of DIRECTORY.organisations) bySector.set(o.sector, (bySector.get(o.sector) ?? 0) + 1);
  const parking = DIRECTORY.organisations.filter((o) => o.sector === "private-parking");
  return {
    checked: DIRECTORY.checked,
    coverage: [...bySector].map(([sector, count]) => ({ sector, count })).concat([{ sector: "council", count: COUNCILS.length }]),
    schemes: Object.entries(DIRECTORY.schemes).map(([id, s]) => ({ id, name: s.name, url: s.url })),
    organisations: DIRECTORY.organisations.filter((o) => o.sector !== "private-parking").map((o) => ({ name: o.name, sector: o.sector, scheme: o.scheme })),
    private_parking_operators: parking.map((o) => ({ name: o.name, scheme: o.scheme, trade_body: o.scheme === "popla" ? "British Parking Association" : "International Parking Community", website: o.website })),
    councils: COUNCILS.map((c) => ({ name: c.name, code: c.code, kind: c.kind, nation: c.nation, london: c.london })),
    note: DIRECTORY.note,
  };
}

// --- energy, telecoms, water -------------------------------------------------------------------------------------

function providerFor(ctx: PluginContext, param: string, sector: string) {
  const name = ctx.params[param] as string | undefined;
  if (name === undefined) return null;
  const o = findOrganisation(name);
  return o && o.sector === sector ? organisationAnswer(o) : { name, sector, website: null, scheme: null, london: null, source: null, note: `${name} is not in the directory: its final response or deadlock letter names its scheme.` };
}

function answer(kind: string, deadlines: Deadline[], needs: { input: string; for: string }[], nextStep: string, extra: Record<string, unknown>) {
  return { kind, ...extra, deadlines, needs_input: needs, next_step: nextStep, rules_checked: RULES.checked, legal_notice: NOTICE };
}

energyComplaint.validate = (params: Record<string, unknown>) => {
  const { charges_from: from, bill_date: bill } = params as { charges_from?: string; bill_date?: string };
  if (from && bill && from > bill) throw badParam("charges_from", `charges_from cannot be after bill_date (${bill}).`);
};

export function energyComplaint(ctx: PluginContext) {
  notFuture(ctx, "complained_on", "bill_date");
  const complained = optDay(ctx, "complained_on");
  const bill = optDay(ctx, "bill_date");
  const from = optDay(ctx, "charges_from");
  const deadlines: Deadline[] = [];
  const needs: { input: string; for: string }[] = [];
  let next = "Complain to your supplier in writing (keep the date), then call again with complained_on.";
  if (complained) {
    const opens = addDays(complained, 7 * num("energy.ombudsman_wait", "weeks"));
    deadlines.push(deadline("ombudsman_opens", "The Energy Ombudsman takes the complaint from this day, or sooner with a deadlock letter", opens, "energy.ombudsman_wait"));
    deadlines.push(deadline("ombudsman_last_day", "Last day to bring it to the Energy Ombudsman when no deadlock letter came (12 months after the 8 weeks; a deadlock letter starts its own 12 months)", addMonths(opens, num("energy.ombudsman_limit", "months")), "energy.ombudsman_limit"));
    next = opens > clock.today()
      ? `Wait for the supplier's final response; if none comes, or it does not settle it, go to the Energy Ombudsman from ${isoDay(opens)}.`
      : "You can take the complaint to the Energy Ombudsman now (https://www.energyombudsman.org), with your account number and the complaint's history.";
  } else needs.push({ input: "complained_on", for: "when the Energy Ombudsman can take the complaint, and the last day to go to it" });
  let backBilling = null;
  if (bill) {
    const cutoff = addMonths(bill, -num("energy.back_billing", "months"));
    deadlines.push(deadline("back_billing_cutoff", "Energy used before this day cannot be billed unless you were at fault (back-billing rule)", cutoff, "energy.back_billing"));
    backBilling = from
      ? { applies: from < cutoff, cutoff_date: isoDay(cutoff), text: from < cutoff ? `The bill reaches back to ${isoDay(from)}, before ${isoDay(cutoff)}: the charges for energy used before ${isoDay(cutoff)} are likely not payable if you were not at fault (you did not block meter readings or ignore bills). Say so in your complaint.` : "The bill covers the last 12 months only: the back-billing rule does not apply." }
      : { applies: null, cutoff_date: isoDay(cutoff), text: "Give charges_from (the start of the period billed) to see whether the back-billing rule applies." };
  } else if (from) needs.push({ input: "bill_date", for: "the back-billing cut-off (12 months before the bill)" });
  return answer("energy", deadlines, needs, next, { supplier: providerFor(ctx, "supplier", "energy"), back_billing: backBilling });
}

export function telecomsComplaint(ctx: PluginContext) {
  notFuture(ctx, "complained_on", "contract_start", "change_notified_on");
  const complained = optDay(ctx, "complained_on");
  const start = optDay(ctx, "contract_start");
  const change = optDay(ctx, "change_notified_on");
  const deadlines: Deadline[] = [];
  const needs: { input: string; for: string }[] = [];
  const provider = providerFor(ctx, "provider", "telecoms");
  let next = "Complain to your provider (keep the date), then call again with complained_on.";
  if (complained) {
    const w = rule("telecoms.adr_wait");
    const change6 = day(w.change_date as string);
    const eight = addDays(complained, 7 * (w.weeks as number));
    const six = addDays(complained, 7 * (w.weeks_from_2026_04_08 as number));
    const opens = eight <= change6 ? eight : six >= change6 ? six : change6;
    const scheme = provider?.scheme ? provider.scheme.name : "its ADR scheme (Communications Ombudsman or CISAS)";
    deadlines.push(deadline("adr_opens", `${scheme} takes the complaint from this day, or sooner with a deadlock letter`, opens, "telecoms.adr_wait"));
    next = opens > clock.today()
      ? `Wait for the provider's answer; if it does not settle it, ask for a deadlock letter or go to ${scheme} from ${isoDay(opens)}.`
      : `You can take the complaint to ${scheme} now; if the provider sent a deadlock letter, do it within 12 months of that letter.`;
  } else needs.push({ input: "complained_on", for: "when the ADR scheme can take the complaint" });
  if (change) deadlines.push(deadline("exit_without_penalty", "Last day to leave without a penalty after the notified change (if it is not to your benefit)", addMonths(change, num("telecoms.contract_change_exit", "months")), "telecoms.contract_change_exit"));
  if (start) deadlines.push(deadline("longest_commitment_end", "The initial commitment period cannot run past this day (24 months at most)", addDays(addMonths(start, num("telecoms.max_commitment", "months")), -1), "telecoms.max_commitment"));
  return answer("telecoms", deadlines, needs, next, { provider, adr_limit: cite("telecoms.adr_limit") });
}

export function waterComplaint(ctx: PluginContext) {
  notFuture(ctx, "complained_on");
  const complained = optDay(ctx, "complained_on");
  const deadlines: Deadline[] = [];
  const needs: { input: string; for: string }[] = [];
  let next = "Complain to the water company in writing (keep the date), then call again with complained_on.";
  if (complained) {
    const reply = addWorkingDays(complained, num("water.company_reply", "working_days"));
    deadlines.push(deadline("company_reply_due", "The company must answer your written complaint by this day, or pay you £20", reply, "water.company_reply"));
    next = reply >= clock.today()
      ? `Wait for the company's answer (due by ${isoDay(reply)}); if it does not settle it, ask for its final response and refer the complaint to CCW.`
      : "If the company has not settled it, refer the complaint to CCW (https://www.ccw.org.uk); after CCW closes it, you have 6 months to go to WATRS.";
  } else needs.push({ input: "complained_on", for: "the day the company's answer is due" });
  return answer("water", deadlines, needs, next, {
    company: providerFor(ctx, "company", "water"),
    steps: ["water company", "CCW", "WATRS"].map((s, i) => ({ step: i + 1, name: s, rule: cite(["water.company_reply", "water.ccw_referral", "water.watrs_limit"][i]) })),
    coverage: "England and Wales; in Scotland, complain to Scottish Water, then the Scottish Public Services Ombudsman.",
  });
}

// --- parking -----------------------------------------------------------------------------------------------------

export const GROUNDS: Record<"council" | "private", Record<string, { title: string; evidence: string; source: string }>> = {
  council: {
    contravention_did_not_occur: { title: "The contravention did not occur (for example the restriction was not signed or marked, or you were loading or had a valid permit or ticket)", evidence: "photos of signs and lines, the ticket or permit, receipts", source: "https://www.legislation.gov.uk/uksi/2007/3482/regulation/4" },
    not_owner: { title: "You were not the owner (keeper) of the vehicle when the contravention happened", evidence: "the sale record, V5C or dealer invoice with the buyer's name", source: "https://www.legislation.gov.uk/uksi/2007/3482/regulation/4" },
    vehicle_taken_without_consent: { title: "The vehicle had been taken without your consent", evidence: "the police crime reference", source: "https://www.legislation.gov.uk/uksi/2007/3482/regulation/4" },
    hire_firm: { title: "You are a hire firm and the vehicle was on hire under a signed agreement", evidence: "the hire agreement and the hirer's statement of liability", source: "https://www.legislation.gov.uk/uksi/2007/3482/regulation/4" },
    penalty_exceeded: { title: "The penalty exceeds the amount that applies", evidence: "the council's published penalty bands", source: "https://www.legislation.gov.uk/uksi/2007/3482/regulation/4" },
    order_invalid: { title: "The traffic order is invalid", evidence: "the traffic regulation order and what is wrong with it", source: "https://www.legislation.gov.uk/uksi/2007/3482/regulation/4" },
    procedural_impropriety: { title: "The council did not follow the required procedure (for example a notice was served late or lacks required content)", evidence: "the notices and envelopes with their dates", source: "https://www.legislation.gov.uk/uksi/2007/3482/regulation/4" },
    already_paid: { title: "The Notice to Owner was served after the penalty had been paid", evidence: "the payment receipt", source: "https://www.legislation.gov.uk/uksi/2007/3482/regulation/4" },
    compelling_reasons: { title: "Compelling reasons (mitigation): the council may cancel at its discretion, such as a medical emergency or a breakdown", evidence: "a doctor's letter, a recovery invoice", source: "https://www.gov.uk/government/publications/civil-enforcement-of-parking-contraventions" },
  },
  private: {
    not_driver_keeper_not_liable: { title: "You were the keeper, not the driver, and the notice does not meet the Protection of Freedoms Act 2012 Schedule 4, so the keeper is not liable", evidence: "the notice to keeper with its dates; do not name the driver", source: "https://www.legislation.gov.uk/ukpga/2012/9/schedule/4" },
    inadequate_signage: { title: "The signs did not clearly set out the terms and the charge, so no contract was formed", evidence: "photos of the entrance and the signs near where you parked", source: "https://www.popla.co.uk/faqs" },
    grace_period: { title: "You stayed within the grace period to read the terms or to leave after parking ended", evidence: "entry and exit times from the notice, the tariff board", source: "https://www.theipc.info/appeals" },
    paid_or_permitted: { title: "You had paid or held a valid permit (a mistyped registration is a keying error)", evidence: "the ticket, app receipt or permit", source: "https://www.popla.co.uk/faqs" },
    blue_badge: { title: "A valid Blue Badge was displayed where disabled parking was allowed", evidence: "a copy of the badge", source: "https://www.popla.co.uk/faqs" },
    vehicle_broke_down: { title: "The vehicle broke down or there was an emergency", evidence: "the recovery invoice or medical evidence", source: "https://www.theipc.info/appeals" },
    no_landowner_authority: { title: "The operator lacks the landowner's authority to issue charges", evidence: "ask the operator (or the scheme) for the landowner contract", source: "https://www.popla.co.uk/faqs" },
  },
};

/** The grounds depend on the ticket's type: checked before payment. */
parkingAppeal.validate = (params: Record<string, unknown>) => {
  const p = params as { type: "council" | "private"; ticket_kind?: string; ground?: string };
  if (p.ticket_kind && p.type === "private") throw badParam("ticket_kind", "ticket_kind applies to council PCNs only (parking, box_junction, bus_lane).");
  const grounds = GROUNDS[p.type];
  if (p.ground && !grounds[p.ground]) throw badParam("ground", `ground must be one of ${Object.keys(grounds).join(", ")} for a ${p.type} ticket (got "${p.ground}").`);
};

export function parkingAppeal(ctx: PluginContext) {
  const p = ctx.params as { type: "council" | "private"; issued_on: string; issuer?: string; ticket_kind?: string; ground?: string; amount?: string };
  notFuture(ctx, "issued_on");
  const issued = day(p.issued_on);
  const grounds = GROUNDS[p.type];
  const groundList = Object.entries(grounds).map(([key, g]) => ({ key, ...g }));
  const chosen = p.ground ? { key: p.ground, ...grounds[p.ground] } : null;
  const deadlines: Deadline[] = [];
  const today = clock.today();
  const amount = p.amount === undefined ? null : Number(p.amount);
  if (p.type === "council") {
    const kind = p.ticket_kind ?? "parking";
    const c = p.issuer ? findCouncil(p.issuer) : undefined;
    const tfl = p.issuer ? findOrganisation(p.issuer)?.london === true : false;
    const london = c ? c.london : tfl ? true : null;
    const scotland = c?.nation === "scotland";
    const postal = kind !== "parking";
    const discountDays = postal && london === false ? num("council_pcn.discount", "days_postal") : num("council_pcn.discount", "days");
    const discountEnd = addDays(issued, discountDays - 1);
    deadlines.push(deadline("discount_ends", `Last day to pay at the 50% discount, or to challenge and keep the discount (${discountDays} days beginning with the day of service)`, discountEnd, "council_pcn.discount"));
    if (postal) {
      deadlines.push(deadline("representations_due", "Last day for formal representations to the council (28 days beginning with the day the PCN was served by post)", addDays(issued, 27), "council_pcn.representations"));
    } else {
      deadlines.push(deadline("notice_to_owner_from", "If unpaid, the council may send the Notice to Owner from this day; formal representations are then due within 28 days of it", addDays(issued, num("council_pcn.notice_to_owner", "days")), "council_pcn.notice_to_owner"));
    }
    const tribunal = scotland ? { id: "housing-and-property-chamber", name: "Housing and Property Chamber (parking and bus lane appeals)", url: "https://www.mygov.scot/parking-appeals/how-to-appeal" }
      : london === null ? null : { id: london ? "london-tribunals" : "traffic-penalty-tribunal", ...DIRECTORY.schemes[london ? "london-tribunals" : "traffic-penalty-tribunal"] };
    const next = discountEnd >= today
      ? `Pay the discounted amount by ${isoDay(discountEnd)}, or challenge the PCN in writing with the council by then${chosen ? ` on the ground "${chosen.key}"` : " (choose a ground from grounds)"}: a challenge in time keeps the discount if it is rejected.`
      : `The discount has lapsed unless you challenged in time. ${postal ? "Make formal representations to the council" : "When the Notice to Owner comes, make formal representations within 28 days of it"}; if they are rejected, appeal to ${tribunal?.name ?? "the tribunal (London Tribunals in London, the Traffic Penalty Tribunal elsewhere in England and in Wales)"} within 28 days of the Notice of Rejection.`;
    return {
      kind: "council", ticket_kind: kind, issued_on: p.issued_on,
      issuer: c ? { name: c.name, code: c.code, london: c.london, nation: c.nation } : p.issuer ? { name: p.issuer, code: null, london: tfl ? true : null, nation: null, note: tfl ? null : "Not found among UK councils: give the council's name to choose the tribunal." } : null,
      tribunal,
      amount_gbp: amount, discounted_amount_gbp: amount === null ? null : Math.round(amount * 50) / 100, charge_certificate_amount_gbp: amount === null ? null : Math.round(amount * 150) / 100,
      deadlines, later_steps: ["council_pcn.representations", "council_pcn.tribunal", "council_pcn.charge_certificate"].map(cite),
      ground: chosen, grounds: groundList, next_step: next, rules_checked: RULES.checked, legal_notice: NOTICE,
    };
  }
  const o = p.issuer ? findOrganisation(p.issuer) : undefined;
  const op = o && o.sector === "private-parking" ? o : undefined;
  const discountEnd = addDays(issued, num("private_pcn.operator_appeal", "discount_days") - 1);
  deadlines.push(deadline("reduced_rate_ends", "Last day to pay the reduced rate, or to appeal to the operator and keep it", discountEnd, "private_pcn.operator_appeal"));
  deadlines.push(deadline("operator_appeal_due", "Last day to appeal to the operator (28 days from the charge)", addDays(issued, num("private_pcn.operator_appeal", "days")), "private_pcn.operator_appeal"));
  if (!op || op.scheme === "ias") deadlines.push(deadline("ias_last_day", "The IAS does not hear a charge imposed more than 12 months before", addMonths(issued, num("private_pcn.ias", "months_max")), "private_pcn.ias"));
  const scheme = op ? schemeOf(op) : null;
  const next = discountEnd >= today
    ? `Appeal to ${op?.name ?? "the operator"} in writing by ${isoDay(discountEnd)} to keep the reduced rate${chosen ? `, on the ground "${chosen.key}"` : " (choose a ground from grounds)"}; if it rejects the appeal, go to ${scheme?.name ?? "the scheme its rejection letter names (POPLA or IAS)"} within 28 days of the rejection.`
    : `Appeal to ${op?.name ?? "the operator"} by ${isoDay(addDays(issued, 28))} if you have not; after a rejection, go to ${scheme?.name ?? "the scheme the rejection letter names (POPLA or IAS)"} within 28 days of it. Do not ignore court papers.`;
  return {
    kind: "private", issued_on: p.issued_on,
    issuer: op ? { name: op.name, trade_body: op.scheme === "popla" ? "British Parking Association" : "International Parking Community" } : p.issuer ? { name: p.issuer, trade_body: null, note: "Not in the directory: the notice says which trade body (BPA or IPC) the operator belongs to, and so whether POPLA or the IAS hears appeals." } : null,
    appeals_service: scheme,
    amount_gbp: amount, reduced_amount_gbp: amount === null ? null : Math.round(amount * 60) / 100,
    amount_note: amount !== null && amount > 100 ? "Charges under the BPA and IPC codes are usually at most £100: ask the operator to justify a higher one." : null,
    deadlines, later_steps: ["private_pcn.popla", "private_pcn.ias", "private_pcn.nature"].map(cite),
    ground: chosen, grounds: groundList, next_step: next, rules_checked: RULES.checked, legal_notice: NOTICE,
  };
}

// --- consumer charges --------------------------------------------------------------------------------------------

const REGULATED: Record<string, string> = {
  credit_card: "credit card", bank: "bank or building society", insurance: "insurance", loan: "loan or credit agreement", mortgage: "mortgage",
  pension: "pension", investment: "investment", buy_now_pay_later: "buy now pay later",
};

export function consumerCharge(ctx: PluginContext) {
  const p = ctx.params as { category: string; company?: string; amount?: string; complained_on: string };
  notFuture(ctx, "complained_on");
  const complained = day(p.complained_on);
  const amount = p.amount === undefined ? null : Number(p.amount);
  if (REGULATED[p.category]) {
    const finalBy = addDays(complained, 7 * num("financial.final_response", "weeks"));
    return {
      kind: "regulated", category: p.category, assessed: false, company: p.company ?? null,
      signpost: {
        text: `A complaint about a ${REGULATED[p.category]} is a regulated financial matter: this service signposts the route and does not assess it.`,
        route: ["Complain to the firm in writing.", "It must send its final response within 8 weeks.", "Then, or if it does not answer in 8 weeks, go to the Financial Ombudsman Service within 6 months of the final response."],
        scheme: { id: "financial-ombudsman", ...DIRECTORY.schemes["financial-ombudsman"] },
      },
      deadlines: [deadline("final_response_due", "The firm's final response is due by this day; from the next, the Financial Ombudsman can take the complaint", finalBy, "financial.final_response")],
      later_steps: [cite("financial.ombudsman_limit")],
      next_step: finalBy > clock.today() ? `Wait for the firm's final response (due by ${isoDay(finalBy)}).` : "Take the complaint to the Financial Ombudsman Service now, with the firm's final response if it sent one.",
      rules_checked: RULES.checked, legal_notice: NOTICE,
    };
  }
  const rights: Record<string, string[]> = {
    subscription: ["consumer.cancel_distance", "consumer.cpa_cancel", "consumer.services"],
    gym: ["consumer.gym", "consumer.cpa_cancel", "consumer.services"],
    retailer: ["consumer.goods_reject", "consumer.cancel_distance"],
    tradesperson: ["consumer.services", "consumer.cancel_distance"],
    other_consumer: ["consumer.goods_reject", "consumer.services", "consumer.cancel_distance"],
  };
  const replyBy = addDays(complained, num("consumer.letter_before_action", "days"));
  const s75 = amount === null ? null : amount > num("consumer.section75", "min_pounds") && amount <= num("consumer.section75", "max_pounds");
  const smallClaims = amount === null ? null : amount <= num("consumer.small_claims", "pounds");
  return {
    kind: "consumer", category: p.category, assessed: true, company: p.company ?? null, amount_gbp: amount,
    your_rights: rights[p.category].map(cite),
    card_protection: {
      chargeback: cite("consumer.chargeback"),
      section_75: { ...cite("consumer.section75"), eligible: s75, why: s75 === null ? "Give amount to check the £100 to £30,000 range." : s75 ? "The amount is within £100.01 to £30,000: if you paid by credit card (even partly), the card issuer is jointly liable." : "The amount is outside £100.01 to £30,000: section 75 does not apply; chargeback may." },
    },
    deadlines: [deadline("reply_due", "Give the trader 14 days to put it right; after this day you can escalate (card claim, ADR scheme, small claims)", replyBy, "consumer.letter_before_action")],
    court: { ...cite("consumer.small_claims"), small_claims: smallClaims },
    next_step: replyBy > clock.today()
      ? `Write to ${p.company ?? "the trader"} setting out the problem, what you want (refund, repair, price reduction) and a deadline of ${isoDay(replyBy)}.`
      : `If ${p.company ?? "the trader"} has not put it right, ask your card issuer for a chargeback${s75 ? " or make a section 75 claim" : ""}, use the trader's ADR scheme if it has one, or send a letter before action and claim in the small claims court.`,
    rules_checked: RULES.checked, legal_notice: NOTICE,
  };
}
