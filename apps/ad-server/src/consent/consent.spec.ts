import { GppModel } from '@iabgpp/cmpapi';
import { GVL, PurposeRestriction, RestrictionType, TCModel, TCString } from '@iabtcf/core';
import { createConsentDecider, decideConsent, signalValue } from './consent';
import { LruCache } from './lru';

const VENDOR = 755;
const OTHER_VENDOR = 10;

/** A small Global Vendor List built in memory, so encoding needs no network. */
function offlineGvl(): GVL {
  const purposes: Record<string, { id: number; name: string; description: string; illustrations: string[] }> = {};
  for (let id = 1; id <= 11; id++) purposes[id] = { id, name: `Purpose ${id}`, description: '', illustrations: [] };
  const vendor = (id: number) => ({
    id,
    name: `Vendor ${id}`,
    purposes: [1, 3, 4],
    legIntPurposes: [2, 7],
    flexiblePurposes: [],
    specialPurposes: [],
    features: [],
    specialFeatures: [],
  });
  return new GVL({
    gvlSpecificationVersion: 3,
    vendorListVersion: 42,
    tcfPolicyVersion: 5,
    lastUpdated: '2026-01-01T00:00:00Z',
    purposes,
    specialPurposes: {},
    features: {},
    specialFeatures: {},
    stacks: {},
    dataCategories: {},
    vendors: { [VENDOR]: vendor(VENDOR), [OTHER_VENDOR]: vendor(OTHER_VENDOR) },
  } as unknown as ConstructorParameters<typeof GVL>[0]);
}

interface TcOptions {
  vendors?: number[];
  purposes?: number[];
  purposeOneTreatment?: boolean;
  restrict?: { purpose: number; type: RestrictionType };
  legIntVendors?: number[];
}

function tcString(opts: TcOptions = {}): string {
  const model = new TCModel(offlineGvl());
  model.cmpId = 10;
  model.cmpVersion = 1;
  model.consentScreen = 1;
  model.isServiceSpecific = true;
  model.vendorConsents.set(opts.vendors ?? [VENDOR]);
  model.purposeConsents.set(opts.purposes ?? [1, 3, 4]);
  if (opts.legIntVendors) model.vendorLegitimateInterests.set(opts.legIntVendors);
  if (opts.purposeOneTreatment) model.purposeOneTreatment = true;
  if (opts.restrict) model.publisherRestrictions.add(VENDOR, new PurposeRestriction(opts.restrict.purpose, opts.restrict.type));
  return TCString.encode(model);
}

function gppString(fields: Array<[section: string, field: string, value: unknown]>): string {
  const model = new GppModel();
  for (const [section, field, value] of fields) model.setFieldValue(section, field, value);
  return model.encode();
}

const decide = createConsentDecider({ vendorId: VENDOR });

describe('decideConsent: no signals', () => {
  it('is personalized with no-restriction when nothing is sent', () => {
    expect(decide({})).toEqual({
      personalized: true,
      reason: 'no-restriction',
      gdprApplies: null,
      frameworks: { tcf: 'absent', usPrivacy: 'absent', gpp: 'absent' },
      gppSections: [],
    });
  });

  it('ignores a TC string when gdpr=0', () => {
    const d = decide({ gdpr: '0', gdpr_consent: tcString({ vendors: [OTHER_VENDOR] }) });
    expect(d).toMatchObject({ personalized: true, reason: 'no-restriction', gdprApplies: false, frameworks: { tcf: 'not-applicable' } });
  });
});

describe('decideConsent: TCF (gdpr=1)', () => {
  it('is personalized with vendor consent and purposes 1, 3, 4', () => {
    const d = decide({ gdpr: '1', gdpr_consent: tcString() });
    expect(d).toMatchObject({ personalized: true, reason: 'gdpr-consent', gdprApplies: true, frameworks: { tcf: 'consent' } });
  });

  it('refuses without consent for our vendor id', () => {
    const d = decide({ gdpr: '1', gdpr_consent: tcString({ vendors: [OTHER_VENDOR] }) });
    expect(d).toMatchObject({ personalized: false, reason: 'gdpr-no-vendor-consent', frameworks: { tcf: 'no-vendor-consent' } });
  });

  it('does not take legitimate interest for vendor consent', () => {
    const d = decide({ gdpr: '1', gdpr_consent: tcString({ vendors: [], legIntVendors: [VENDOR] }) });
    expect(d.reason).toBe('gdpr-no-vendor-consent');
  });

  it.each([
    [[3, 4], 'purpose 1 missing'],
    [[1, 4], 'purpose 3 missing'],
    [[1, 3], 'purpose 4 missing'],
  ])('refuses with purposes %j (%s)', (purposes) => {
    const d = decide({ gdpr: '1', gdpr_consent: tcString({ purposes }) });
    expect(d).toMatchObject({ personalized: false, reason: 'gdpr-no-purpose-consent' });
  });

  it('waives purpose 1 under purposeOneTreatment', () => {
    const d = decide({ gdpr: '1', gdpr_consent: tcString({ purposes: [3, 4], purposeOneTreatment: true }) });
    expect(d).toMatchObject({ personalized: true, reason: 'gdpr-consent' });
  });

  it('refuses when a publisher restriction forbids purpose 4 to our vendor', () => {
    const d = decide({ gdpr: '1', gdpr_consent: tcString({ restrict: { purpose: 4, type: RestrictionType.NOT_ALLOWED } }) });
    expect(d).toMatchObject({ personalized: false, reason: 'gdpr-publisher-restriction' });
  });

  it('ignores a publisher restriction on a purpose we do not need', () => {
    const d = decide({ gdpr: '1', gdpr_consent: tcString({ restrict: { purpose: 7, type: RestrictionType.NOT_ALLOWED } }) });
    expect(d.personalized).toBe(true);
  });

  it('refuses a missing TC string', () => {
    expect(decide({ gdpr: '1' })).toMatchObject({ personalized: false, reason: 'gdpr-missing-tc-string', frameworks: { tcf: 'absent' } });
    expect(decide({ gdpr: '1', gdpr_consent: '' })).toMatchObject({ personalized: false, reason: 'gdpr-missing-tc-string' });
  });

  it.each(['garbage', 'CPXxRfAPXxRfAAfKABENB', '!!!!', 'Zm9v.YmFy'])('refuses an undecodable TC string %s', (bad) => {
    expect(decide({ gdpr: '1', gdpr_consent: bad })).toMatchObject({ personalized: false, reason: 'gdpr-invalid-tc-string', frameworks: { tcf: 'invalid' } });
  });

  it('treats an unexpanded consent macro as missing, without throwing', () => {
    expect(decide({ gdpr: '1', gdpr_consent: '${GDPR_CONSENT_755}' })).toMatchObject({ personalized: false, reason: 'gdpr-missing-tc-string' });
  });

  it('treats an unexpanded gdpr macro as unknown', () => {
    expect(decide({ gdpr: '${GDPR}', gdpr_consent: '${GDPR_CONSENT_755}' })).toMatchObject({
      personalized: true,
      reason: 'no-restriction',
      gdprApplies: null,
      frameworks: { tcf: 'absent' },
    });
  });

  it('honours a readable TC string when gdpr is unknown', () => {
    expect(decide({ gdpr_consent: tcString({ vendors: [OTHER_VENDOR] }) })).toMatchObject({ personalized: false, reason: 'gdpr-no-vendor-consent' });
    expect(decide({ gdpr: '%%GDPR%%', gdpr_consent: tcString() })).toMatchObject({ personalized: true, reason: 'gdpr-consent' });
  });

  it('ignores an unreadable TC string when gdpr is unknown', () => {
    expect(decide({ gdpr_consent: 'garbage' })).toMatchObject({ personalized: true, reason: 'no-restriction', frameworks: { tcf: 'invalid' } });
  });

  it('decides per vendor id', () => {
    const s = tcString({ vendors: [OTHER_VENDOR] });
    expect(decideConsent({ gdpr: '1', gdpr_consent: s }, OTHER_VENDOR).personalized).toBe(true);
    expect(decideConsent({ gdpr: '1', gdpr_consent: s }, VENDOR).personalized).toBe(false);
  });

  it('rejects a vendor id that is not a non-negative integer', () => {
    expect(() => createConsentDecider({ vendorId: -1 })).toThrow(RangeError);
    expect(() => decideConsent({}, 1.5)).toThrow(RangeError);
  });

  it('never serves GDPR traffic personalized without a vendor id of our own (0), whatever the TC string consents to', () => {
    const s = tcString({ vendors: [VENDOR, OTHER_VENDOR] });
    expect(decideConsent({ gdpr: '1', gdpr_consent: s }, 0)).toMatchObject({ personalized: false, reason: 'gdpr-no-vendor-consent' });
    expect(decideConsent({ gdpr: '0' }, 0).personalized).toBe(true);
  });
});

describe('decideConsent: us_privacy', () => {
  it.each([
    ['1YYN', false, 'us-privacy-opt-out', 'opt-out'],
    ['1NYY', false, 'us-privacy-opt-out', 'opt-out'],
    ['1yyn', false, 'us-privacy-opt-out', 'opt-out'],
    ['1YNN', true, 'no-restriction', 'no-opt-out'],
    ['1---', true, 'no-restriction', 'not-applicable'],
    ['1Y-N', true, 'no-restriction', 'not-applicable'],
    ['2YYN', false, 'us-privacy-invalid', 'invalid'],
    ['1YY', false, 'us-privacy-invalid', 'invalid'],
    ['${US_PRIVACY}', true, 'no-restriction', 'absent'],
    ['undefined', true, 'no-restriction', 'absent'],
  ])('%s -> personalized %s (%s)', (value, personalized, reason, status) => {
    expect(decide({ us_privacy: value })).toMatchObject({ personalized, reason, frameworks: { usPrivacy: status } });
  });

  it('refuses on a CCPA opt-out even with GDPR consent', () => {
    expect(decide({ gdpr: '1', gdpr_consent: tcString(), us_privacy: '1YYN' })).toMatchObject({ personalized: false, reason: 'us-privacy-opt-out' });
  });

  it('reports GDPR first when both refuse', () => {
    expect(decide({ gdpr: '1', us_privacy: '1YYN' }).reason).toBe('gdpr-missing-tc-string');
  });
});

describe('decideConsent: GPP', () => {
  it.each([
    ['usnat', 7, 'SaleOptOut'],
    ['usnat', 7, 'SharingOptOut'],
    ['usnat', 7, 'TargetedAdvertisingOptOut'],
    ['usca', 8, 'SaleOptOut'],
    ['usca', 8, 'SharingOptOut'],
    ['usva', 9, 'TargetedAdvertisingOptOut'],
    ['usco', 10, 'SaleOptOut'],
    ['usut', 11, 'TargetedAdvertisingOptOut'],
    ['usct', 12, 'SaleOptOut'],
    ['usor', 15, 'TargetedAdvertisingOptOut'],
    ['ustx', 16, 'SaleOptOut'],
  ])('%s (%i): %s=1 refuses', (section, id, field) => {
    const gpp = gppString([[section, field, 1]]);
    expect(decide({ gpp, gpp_sid: String(id) })).toMatchObject({
      personalized: false,
      reason: 'gpp-opt-out',
      frameworks: { gpp: 'opt-out' },
      gppSections: [id],
    });
  });

  it.each([
    ['usnat', 7, 'TargetedAdvertisingOptOut'],
    ['usca', 8, 'SharingOptOut'],
    ['usva', 9, 'TargetedAdvertisingOptOut'],
    ['usco', 10, 'TargetedAdvertisingOptOut'],
    ['usut', 11, 'TargetedAdvertisingOptOut'],
    ['usct', 12, 'TargetedAdvertisingOptOut'],
  ])('%s (%i): did not opt out (2) is personalized', (section, id, second) => {
    const gpp = gppString([
      [section, 'SaleOptOut', 2],
      [section, second, 2],
    ]);
    expect(decide({ gpp, gpp_sid: String(id) })).toMatchObject({
      personalized: true,
      reason: 'no-restriction',
      frameworks: { gpp: 'no-opt-out' },
      gppSections: [id],
    });
  });

  it('reads only the sections listed in gpp_sid', () => {
    const gpp = gppString([
      ['usnat', 'SaleOptOut', 2],
      ['usca', 'SaleOptOut', 1],
    ]);
    expect(decide({ gpp, gpp_sid: '7' })).toMatchObject({ personalized: true, gppSections: [7] });
    expect(decide({ gpp, gpp_sid: '7,8' })).toMatchObject({ personalized: false, reason: 'gpp-opt-out', gppSections: [7, 8] });
    expect(decide({ gpp, gpp_sid: '7_8' })).toMatchObject({ personalized: false, gppSections: [7, 8] });
  });

  it('is not applicable without gpp_sid, with gpp_sid -1, or when the listed section is not in the string', () => {
    const gpp = gppString([['usnat', 'SaleOptOut', 1]]);
    expect(decide({ gpp })).toMatchObject({ personalized: true, frameworks: { gpp: 'not-applicable' } });
    expect(decide({ gpp, gpp_sid: '-1' })).toMatchObject({ personalized: true, frameworks: { gpp: 'not-applicable' } });
    expect(decide({ gpp, gpp_sid: '8' })).toMatchObject({ personalized: true, frameworks: { gpp: 'not-applicable' } });
    expect(decide({ gpp, gpp_sid: '${GPP_SID}' })).toMatchObject({ personalized: true, frameworks: { gpp: 'not-applicable' } });
  });

  it('reads the uspv1 section', () => {
    const gpp = gppString([['uspv1', 'OptOutSale', 'Y']]);
    expect(decide({ gpp, gpp_sid: '6' })).toMatchObject({ personalized: false, reason: 'gpp-opt-out', gppSections: [6] });
    const ok = gppString([['uspv1', 'OptOutSale', 'N']]);
    expect(decide({ gpp: ok, gpp_sid: '6' })).toMatchObject({ personalized: true, gppSections: [6] });
  });

  it('reads the TCF EU section (2) as the TC string when gdpr_consent is absent', () => {
    const withSection = (tc: string) => {
      const model = new GppModel();
      model.decodeSection('tcfeuv2', tc);
      model.setFieldValue('usnat', 'SaleOptOut', 2);
      return model.encode();
    };
    const yes = withSection(tcString());
    const no = withSection(tcString({ vendors: [OTHER_VENDOR] }));
    expect(decide({ gpp: yes, gpp_sid: '2' })).toMatchObject({
      personalized: true,
      reason: 'gdpr-consent',
      gdprApplies: true,
      frameworks: { tcf: 'consent', gpp: 'not-applicable' },
      gppSections: [2],
    });
    expect(decide({ gpp: no, gpp_sid: '2,7' })).toMatchObject({
      personalized: false,
      reason: 'gdpr-no-vendor-consent',
      gdprApplies: true,
      frameworks: { gpp: 'no-opt-out' },
      gppSections: [2, 7],
    });
    // not listed in gpp_sid: not read
    expect(decide({ gpp: no, gpp_sid: '7' })).toMatchObject({ personalized: true, gdprApplies: null, frameworks: { tcf: 'absent' } });
    // gdpr=0 wins, and gdpr_consent is preferred over the section
    expect(decide({ gpp: no, gpp_sid: '2', gdpr: '0' })).toMatchObject({ personalized: true, gdprApplies: false });
    expect(decide({ gpp: no, gpp_sid: '2', gdpr: '1', gdpr_consent: tcString() })).toMatchObject({ personalized: true, reason: 'gdpr-consent' });
  });

  it('refuses an undecodable GPP string', () => {
    expect(decide({ gpp: 'garbage~~', gpp_sid: '7' })).toMatchObject({ personalized: false, reason: 'gpp-invalid-string', frameworks: { gpp: 'invalid' } });
  });

  it('refuses a GPP string whose header is sound but whose section is corrupt', () => {
    const [header] = gppString([['usnat', 'SaleOptOut', 2]]).split('~');
    expect(decide({ gpp: `${header}~!!`, gpp_sid: '7' })).toMatchObject({ personalized: false, reason: 'gpp-invalid-string' });
  });

  it('treats an unexpanded GPP macro as absent', () => {
    expect(decide({ gpp: '${GPP_STRING_755}', gpp_sid: '${GPP_SID}' })).toMatchObject({ personalized: true, frameworks: { gpp: 'absent' } });
  });
});

describe('decideConsent: query shapes and caching', () => {
  it('reads URLSearchParams and array values', () => {
    const s = tcString({ vendors: [OTHER_VENDOR] });
    const params = new URLSearchParams({ gdpr: '1', gdpr_consent: s });
    expect(decide(params).reason).toBe('gdpr-no-vendor-consent');
    expect(decide({ gdpr: ['1', '0'], gdpr_consent: [s] }).reason).toBe('gdpr-no-vendor-consent');
  });

  it('gives the same answer from the cache, and keeps working past its size', () => {
    const small = createConsentDecider({ vendorId: VENDOR, cacheSize: 2 });
    const yes = tcString();
    const no = tcString({ vendors: [OTHER_VENDOR] });
    const noPurpose = tcString({ purposes: [1] });
    for (let i = 0; i < 3; i++) {
      expect(small({ gdpr: '1', gdpr_consent: yes }).personalized).toBe(true);
      expect(small({ gdpr: '1', gdpr_consent: no }).reason).toBe('gdpr-no-vendor-consent');
      expect(small({ gdpr: '1', gdpr_consent: noPurpose }).reason).toBe('gdpr-no-purpose-consent');
    }
  });

  it('decodes a repeated TC or GPP string once, and again only once it has left the cache', () => {
    // Counting the cache's writes, not timing calls: each write is one decode, whatever the machine's load.
    const writes = jest.spyOn(LruCache.prototype, 'set');
    try {
      const decider = createConsentDecider({ vendorId: VENDOR, cacheSize: 1 });
      const withGpp = { gdpr: '1', gdpr_consent: tcString(), gpp: gppString([['usnat', 'SaleOptOut', 2]]), gpp_sid: '7' };
      for (let i = 0; i < 1_000; i++) decider(withGpp);
      expect(writes).toHaveBeenCalledTimes(2); // one TC decode, one GPP decode
      decider({ ...withGpp, gdpr_consent: tcString({ vendors: [OTHER_VENDOR] }) });
      decider(withGpp); // the first TC string was pushed out by the second: decoded again
      expect(writes).toHaveBeenCalledTimes(4);
    } finally {
      writes.mockRestore();
    }
  });
});

describe('signalValue', () => {
  it.each(['${GDPR}', '${GDPR_CONSENT_755}', '%%GDPR_CONSENT%%', '[GDPR]', '{gdpr}', '  ', 'null'])('treats %s as absent', (v) => {
    expect(signalValue({ x: v }, 'x')).toBeNull();
  });

  it('trims a real value', () => {
    expect(signalValue({ x: ' 1YNN ' }, 'x')).toBe('1YNN');
  });
});
