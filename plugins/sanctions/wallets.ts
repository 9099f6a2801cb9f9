// Digital currency addresses: what kind an address is, and the form it is compared in. EVM (0x + 40 hex) and
// bech32 (bc1..., ltc1...) addresses are case-insensitive, so they compare lower-cased; base58 addresses
// (BTC legacy, TRX, XMR...) are case-sensitive and compare exactly as written.

export interface AddressKind {
  kind: string;
  /** The form addresses are stored and looked up in. */
  key: string;
}

const BASE58 = "[1-9A-HJ-NP-Za-km-z]";

export function addressKind(raw: string): AddressKind {
  const a = raw.trim();
  if (/^0x[0-9a-fA-F]{40}$/.test(a)) return { kind: "EVM (Ethereum and compatible chains: ETH, USDT/USDC on Ethereum, BSC, ARB...)", key: a.toLowerCase() };
  if (/^(bc1|tb1)[02-9ac-hj-np-z]{11,87}$/i.test(a)) return { kind: "BTC (bech32)", key: a.toLowerCase() };
  if (/^(ltc1)[02-9ac-hj-np-z]{11,87}$/i.test(a)) return { kind: "LTC (bech32)", key: a.toLowerCase() };
  if (new RegExp(`^T${BASE58}{33}$`).test(a)) return { kind: "TRX (Tron, also USDT on Tron)", key: a };
  if (new RegExp(`^[13]${BASE58}{25,34}$`).test(a)) return { kind: "BTC (base58)", key: a };
  if (new RegExp(`^[LM]${BASE58}{26,33}$`).test(a)) return { kind: "LTC (base58)", key: a };
  if (new RegExp(`^4${BASE58}{94}$`).test(a) || new RegExp(`^8${BASE58}{94}$`).test(a)) return { kind: "XMR (Monero)", key: a };
  if (/^(bitcoincash:)?[qp][02-9ac-hj-np-z]{41}$/i.test(a)) return { kind: "BCH (cashaddr)", key: a.toLowerCase().replace(/^bitcoincash:/, "") };
  if (new RegExp(`^X${BASE58}{33}$`).test(a)) return { kind: "DASH", key: a };
  if (/^t1[1-9A-HJ-NP-Za-km-z]{33}$/.test(a)) return { kind: "ZEC (transparent)", key: a };
  return { kind: "other", key: a };
}

/** The key a listed address is stored under (its own kind's comparison form). */
export function walletKey(address: string): string {
  return addressKind(address).key;
}
