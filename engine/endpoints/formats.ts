// Input formats that more than one endpoint takes, checked where parameters are (before any payment).
import net from "node:net";
import { domainToASCII } from "node:url";

/**
 * The host name in a domain name, or in a URL or e-mail address holding one, in ASCII (punycode for IDNs);
 * undefined when it is not a domain name.
 */
export function domainHost(raw: string): string | undefined {
  const s = raw.trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/^[^@/]*@/, "").replace(/[/?#].*$/, "").replace(/:\d+$/, "").replace(/\.$/, "");
  const ascii = domainToASCII(s.toLowerCase());
  const labels = ascii.split(".");
  const ok = ascii.length > 0 && ascii.length <= 253 && labels.length >= 2
    && labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l))
    && /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(labels[labels.length - 1]);
  return ok ? ascii : undefined;
}

export const isIpAddress = (text: string) => net.isIP(text) !== 0;
