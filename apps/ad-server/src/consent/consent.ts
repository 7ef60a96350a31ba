import { GppModel, Sections } from '@iabgpp/cmpapi';
import { TCString } from '@iabtcf/core';
import { LruCache } from './lru';

/**
 * Whether a request may be served personalized, from the privacy signals the tag forwards:
 * `gdpr`, `gdpr_consent` (IAB TCF v2 TC string), `us_privacy` (IAB CCPA string), `gpp` and `gpp_sid` (IAB GPP).
 *
 * Rules, in order; the first that refuses decides the reason:
 *
 * 1. TCF. `gdpr=1` means GDPR applies; then a TC string is required, must decode as TCF v2, and must give
 *    - consent to our vendor id (vendor consent, not just legitimate interest), and
 *    - consent to purposes 1 (store and/or access information on a device), 3 (create a personalised ads
 *      profile) and 4 (select personalised ads). Purpose 1 is waived when the string sets
 *      `purposeOneTreatment` (the publisher's country does not require it). Purposes 3 and 4 can only rest on
 *      consent in TCF 2.2, so legitimate interest is never enough here.
 *    - no publisher restriction that forbids our vendor those purposes.
 *    Missing or undecodable under `gdpr=1` means not personalized. With `gdpr=0` the TC string is ignored.
 *    With `gdpr` absent, a TC string that decodes is honoured (a CMP ran, so the user saw a choice); one that
 *    does not decode is ignored, since we cannot tell that GDPR applies at all.
 * 2. `us_privacy`: a third character 'Y' (opted out of sale) refuses; `1---` is "not applicable".
 * 3. GPP: only the sections whose ids appear in `gpp_sid` apply. In the US national section (usnat, 7) and
 *    every US state section the library knows (usca 8, usva 9, usco 10, usut 11, usct 12, usfl 13, ...),
 *    SaleOptOut, SharingOptOut or TargetedAdvertisingOptOut equal to 1 ("opted out") refuses; in the
 *    uspv1 section (6) OptOutSale 'Y' refuses. When `gpp_sid` lists the TCF EU section (2) and the request
 *    has no `gdpr_consent`, that section is the TC string and GDPR applies (unless `gdpr=0`); rule 1 then
 *    reads it. The Canadian TCF section (5) is not read.
 *
 * A malformed `us_privacy` or `gpp` string refuses personalization too (fail closed: a corrupt signal may
 * be hiding an opt-out). Values that are unexpanded ad-server macros (`${GDPR}`, `${GDPR_CONSENT_755}`,
 * `%%GDPR%%`, `[GDPR]`, `{gdpr}`) or the strings "undefined"/"null" count as absent.
 *
 * Decoding is the expensive part and the same strings repeat across requests, so TCF and GPP outcomes are
 * kept in bounded LRU caches keyed by the exact input.
 */

export type ConsentReason =
  | 'no-restriction'
  | 'gdpr-consent'
  | 'gdpr-missing-tc-string'
  | 'gdpr-invalid-tc-string'
  | 'gdpr-no-vendor-consent'
  | 'gdpr-no-purpose-consent'
  | 'gdpr-publisher-restriction'
  | 'us-privacy-opt-out'
  | 'us-privacy-invalid'
  | 'gpp-opt-out'
  | 'gpp-invalid-string';

/** What the TC string said: absent, not applicable (gdpr=0), or the outcome of reading it. */
export type TcfStatus = 'absent' | 'not-applicable' | 'consent' | 'no-vendor-consent' | 'no-purpose-consent' | 'publisher-restriction' | 'invalid';
/** What an opt-out signal (us_privacy, GPP) said. */
export type OptOutStatus = 'absent' | 'not-applicable' | 'no-opt-out' | 'opt-out' | 'invalid';

export interface ConsentDecision {
  personalized: boolean;
  reason: ConsentReason;
  /**
   * From `gdpr`: true for 1, false for 0; when absent or an unexpanded macro, true if the TC string came from
   * the GPP string's TCF EU section (listed in gpp_sid), else null.
   */
  gdprApplies: boolean | null;
  frameworks: {
    tcf: TcfStatus;
    usPrivacy: OptOutStatus;
    gpp: OptOutStatus;
  };
  /** GPP sections that were listed in gpp_sid, present in the string and read. */
  gppSections: readonly number[];
}

/** The request's query: Node's URLSearchParams or a parsed query object (string or string[] values). */
export type ConsentQuery = URLSearchParams | Readonly<Record<string, unknown>>;

export interface ConsentDeciderOptions {
  /** The platform's IAB Global Vendor List id. */
  vendorId: number;
  /** Entries of each decode cache (TCF, GPP). Default 10,000. */
  cacheSize?: number;
}

/** Purposes whose consent personalized serving needs (see the rules above). */
export const REQUIRED_TCF_PURPOSES: readonly number[] = [1, 3, 4];
/** GPP US section fields whose value 1 means the user opted out. */
export const GPP_OPT_OUT_FIELDS: readonly string[] = ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut'];
const GPP_OPTED_OUT = 1;
const GPP_USPV1_ID = 6;
const GPP_TCF_EU_ID = 2;
const GPP_TCF_CA_ID = 5;
export const DEFAULT_CONSENT_CACHE_SIZE = 10_000;

const UNRESOLVED_MACRO = /\$\{[^}]*\}|^%%[^%]*%%$|^\[[A-Za-z0-9_]+\]$|^\{[A-Za-z0-9_]+\}$/;
const US_PRIVACY = /^1[YN-][YN-][YN-]$/;

/** The parameter's value, or null when absent, blank, "undefined"/"null" or an unexpanded macro. */
export function signalValue(query: ConsentQuery, name: string): string | null {
  let raw: unknown;
  if (query instanceof URLSearchParams) raw = query.get(name);
  else {
    raw = (query as Record<string, unknown>)[name];
    if (Array.isArray(raw)) raw = raw.find((v) => typeof v === 'string');
  }
  if (typeof raw !== 'string') return null;
  const value = raw.trim();
  if (value === '' || value === 'undefined' || value === 'null') return null;
  if (UNRESOLVED_MACRO.test(value)) return null;
  return value;
}

interface GppOutcome {
  status: OptOutStatus;
  sections: readonly number[];
  /** The TCF EU section (2) as a TC string, when gpp_sid lists it and the string holds it. */
  tcfEu: string | null;
}

function readTcString(tcString: string, vendorId: number): TcfStatus {
  let model;
  try {
    model = TCString.decode(tcString);
  } catch {
    return 'invalid';
  }
  if (model.version !== 2) return 'invalid';
  if (!model.vendorConsents.has(vendorId)) return 'no-vendor-consent';
  for (const purpose of REQUIRED_TCF_PURPOSES) {
    if (purpose === 1 && model.purposeOneTreatment) continue;
    if (!model.purposeConsents.has(purpose)) return 'no-purpose-consent';
  }
  for (const restriction of model.publisherRestrictions.getRestrictions(vendorId)) {
    // RestrictionType.NOT_ALLOWED is 0.
    if (restriction.restrictionType === 0 && REQUIRED_TCF_PURPOSES.includes(restriction.purposeId)) return 'publisher-restriction';
  }
  return 'consent';
}

function parseSectionIds(gppSid: string | null): number[] {
  if (!gppSid) return [];
  const ids: number[] = [];
  for (const part of gppSid.split(/[,_]/)) {
    const id = Number(part.trim());
    if (Number.isInteger(id) && id > 0 && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

function readGpp(gpp: string, sectionIds: readonly number[]): GppOutcome {
  if (sectionIds.length === 0) return { status: 'not-applicable', sections: [], tcfEu: null };
  let optedOut = false;
  let tcfEu: string | null = null;
  const read: number[] = [];
  try {
    const model = new GppModel(gpp);
    const present = new Set<number>(model.getSectionIds());
    for (const id of sectionIds) {
      if (!present.has(id) || id === GPP_TCF_CA_ID) continue;
      const name = Sections.SECTION_ID_NAME_MAP.get(id);
      if (id === GPP_TCF_EU_ID && name) {
        tcfEu = model.encodeSection(name);
        read.push(id);
        continue;
      }
      if (!name) continue;
      read.push(id);
      if (id === GPP_USPV1_ID) {
        if (String(model.getFieldValue(name, 'OptOutSale')).toUpperCase() === 'Y') optedOut = true;
        continue;
      }
      for (const field of GPP_OPT_OUT_FIELDS) {
        if (model.hasField(name, field) && model.getFieldValue(name, field) === GPP_OPTED_OUT) optedOut = true;
      }
    }
  } catch {
    return { status: 'invalid', sections: [], tcfEu: null };
  }
  if (read.length === 0) return { status: 'not-applicable', sections: [], tcfEu: null };
  // A string holding only the TCF EU section says nothing about US opt-outs.
  const usRead = read.some((id) => id !== GPP_TCF_EU_ID);
  return { status: optedOut ? 'opt-out' : usRead ? 'no-opt-out' : 'not-applicable', sections: read, tcfEu };
}

function readUsPrivacy(value: string | null): OptOutStatus {
  if (value === null) return 'absent';
  const v = value.toUpperCase();
  if (!US_PRIVACY.test(v)) return 'invalid';
  if (v === '1---') return 'not-applicable';
  const optOut = v.charAt(2);
  if (optOut === 'Y') return 'opt-out';
  if (optOut === 'N') return 'no-opt-out';
  return 'not-applicable';
}

const TCF_REFUSALS: Partial<Record<TcfStatus, ConsentReason>> = {
  'no-vendor-consent': 'gdpr-no-vendor-consent',
  'no-purpose-consent': 'gdpr-no-purpose-consent',
  'publisher-restriction': 'gdpr-publisher-restriction',
  invalid: 'gdpr-invalid-tc-string',
};

export type ConsentDecider = (query: ConsentQuery) => ConsentDecision;

const ABSENT_GPP: GppOutcome = { status: 'absent', sections: [], tcfEu: null };

/** A decider for one vendor id with its own caches: build it once at start-up, call it per request. */
export function createConsentDecider(options: ConsentDeciderOptions): ConsentDecider {
  const { vendorId } = options;
  // 0: the platform has no IAB vendor id yet, so no TC string can consent to it and GDPR traffic is never personalized.
  if (!Number.isInteger(vendorId) || vendorId < 0) throw new RangeError(`vendorId must be a non-negative integer, got ${vendorId}`);
  const cacheSize = options.cacheSize ?? DEFAULT_CONSENT_CACHE_SIZE;
  const tcfCache = new LruCache<string, TcfStatus>(cacheSize);
  const gppCache = new LruCache<string, GppOutcome>(cacheSize);

  return (query) => {
    const gppString = signalValue(query, 'gpp');
    let gpp: GppOutcome;
    if (gppString === null) gpp = ABSENT_GPP;
    else {
      const sid = signalValue(query, 'gpp_sid') ?? '';
      const key = sid + '|' + gppString;
      let cached = gppCache.get(key);
      if (cached === undefined) {
        cached = readGpp(gppString, parseSectionIds(sid));
        gppCache.set(key, cached);
      }
      gpp = cached;
    }

    const gdprRaw = signalValue(query, 'gdpr');
    let gdprApplies = gdprRaw === '1' ? true : gdprRaw === '0' ? false : null;
    let tcString = signalValue(query, 'gdpr_consent');
    if (tcString === null && gpp.tcfEu !== null && gdprApplies !== false) {
      tcString = gpp.tcfEu;
      gdprApplies = true;
    }

    let tcf: TcfStatus;
    if (gdprApplies === false) tcf = 'not-applicable';
    else if (tcString === null) tcf = 'absent';
    else {
      let cached = tcfCache.get(tcString);
      if (cached === undefined) {
        cached = readTcString(tcString, vendorId);
        tcfCache.set(tcString, cached);
      }
      tcf = cached;
    }

    const usPrivacy = readUsPrivacy(signalValue(query, 'us_privacy'));

    const frameworks = { tcf, usPrivacy, gpp: gpp.status };
    const decide = (personalized: boolean, reason: ConsentReason): ConsentDecision => ({
      personalized,
      reason,
      gdprApplies,
      frameworks,
      gppSections: gpp.sections,
    });

    if (gdprApplies === true && tcf === 'absent') return decide(false, 'gdpr-missing-tc-string');
    // With gdpr unknown, an unreadable string is ignored (see above); a readable refusal still refuses.
    const tcfRefusal = tcf === 'invalid' && gdprApplies !== true ? undefined : TCF_REFUSALS[tcf];
    if (tcfRefusal) return decide(false, tcfRefusal);
    if (usPrivacy === 'opt-out') return decide(false, 'us-privacy-opt-out');
    if (usPrivacy === 'invalid') return decide(false, 'us-privacy-invalid');
    if (gpp.status === 'opt-out') return decide(false, 'gpp-opt-out');
    if (gpp.status === 'invalid') return decide(false, 'gpp-invalid-string');
    return decide(true, tcf === 'consent' ? 'gdpr-consent' : 'no-restriction');
  };
}

const defaultDeciders = new Map<number, ConsentDecider>();

/**
 * Decides with a process-wide decider (and caches) per vendor id. Prefer `createConsentDecider` once at
 * start-up when the vendor id comes from config; this is the same thing, looked up per call.
 */
export function decideConsent(query: ConsentQuery, vendorId: number): ConsentDecision {
  let decider = defaultDeciders.get(vendorId);
  if (!decider) {
    decider = createConsentDecider({ vendorId });
    defaultDeciders.set(vendorId, decider);
  }
  return decider(query);
}
