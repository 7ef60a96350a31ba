import { lintMacros, MACRO_REGISTRY, macrosOf } from './macro.registry';

describe('MACRO_REGISTRY', () => {
  const entries = Object.values(MACRO_REGISTRY);

  it('covers every ad server of the seeded catalog', () => {
    expect(Object.keys(MACRO_REGISTRY).sort()).toEqual(['cm360', 'dv360', 'gam', 'meta', 'onsite-rm', 'pinterest', 'ttd', 'vistar', 'xandr']);
    expect(macrosOf('doubleclick-classic')).toBeUndefined();
  });

  it.each(entries.map((m) => [m.adServerId, m] as const))('%s: its example macro is in its own syntax, and lints clean in its own tags', (_id, macros) => {
    expect(macros.macroPattern.test(macros.macroExample)).toBe(true);
    // The click macro last, where a raw one belongs.
    const own = [macros.macroExample, macros.cacheBusterMacro, macros.clickMacro].filter((m): m is string => m !== null);
    expect(lintMacros(`https://t.example/p?${own.map((m, i) => `p${i}=${m}`).join('&')}`, macros)).toEqual([]);
  });

  it('tells apart the syntaxes of servers that write macros differently', () => {
    expect(lintMacros('https://t.example/p?s=${STORE_ID}', MACRO_REGISTRY.gam)).toEqual([
      expect.objectContaining({ macro: '${STORE_ID}', problem: 'FOREIGN_MACRO' }),
    ]);
    expect(lintMacros('https://t.example/p?s=%%PATTERN:store%%', MACRO_REGISTRY.xandr)).toEqual([expect.objectContaining({ problem: 'FOREIGN_MACRO' })]);
    expect(lintMacros('https://t.example/p?s=%esid!', MACRO_REGISTRY.ttd)).toEqual([expect.objectContaining({ macro: '%esid!', problem: 'FOREIGN_MACRO' })]);
    expect(lintMacros('https://t.example/p?s={{ad.id}}', MACRO_REGISTRY.meta)).toEqual([]);
    expect(lintMacros('https://t.example/p?s={{ad.id}}', MACRO_REGISTRY['onsite-rm'])).toEqual([expect.objectContaining({ problem: 'FOREIGN_MACRO' })]);
  });

  it('accepts the IAB privacy macros everywhere, and refuses a consent macro without a numeric vendor id', () => {
    for (const macros of entries) {
      expect(lintMacros('https://t.example/p?gdpr=${GDPR}&c=${GDPR_CONSENT_755}&u=${US_PRIVACY}&g=${GPP_STRING_7}&s=${GPP_SID}', macros)).toEqual([]);
      expect(lintMacros('https://t.example/p?c=${GDPR_CONSENT}', macros)).toEqual([expect.objectContaining({ problem: 'CONSENT_MACRO_WITHOUT_VENDOR' })]);
      expect(lintMacros('https://t.example/p?c=${GDPR_CONSENT_abc}', macros)).toEqual([expect.objectContaining({ problem: 'CONSENT_MACRO_WITHOUT_VENDOR' })]);
    }
  });

  it('refuses an unescaped click macro that more parameters follow, and takes it as the last one', () => {
    expect(lintMacros('https://t.example/c?r=%%CLICK_URL_UNESC%%&x=1', MACRO_REGISTRY.gam)).toEqual([
      expect.objectContaining({ problem: 'CLICK_MACRO_ESCAPING', detail: expect.stringContaining('%%CLICK_URL_ESC%%') }),
    ]);
    expect(lintMacros('https://t.example/c?x=1&r=%%CLICK_URL_UNESC%%', MACRO_REGISTRY.gam)).toEqual([]);
    expect(lintMacros('https://t.example/c?r=%%CLICK_URL_ESC%%&x=1', MACRO_REGISTRY.gam)).toEqual([]);
    expect(lintMacros('https://t.example/c?r=%c&x=1', MACRO_REGISTRY.cm360)).toEqual([
      expect.objectContaining({ macro: '%c', problem: 'CLICK_MACRO_ESCAPING' }),
    ]);
    expect(lintMacros('https://t.example/c?x=1&r=%c', MACRO_REGISTRY.cm360)).toEqual([]);
    expect(lintMacros('https://t.example/c?r=${CLICK_URL}&x=1', MACRO_REGISTRY.dv360)).toEqual([expect.objectContaining({ problem: 'CLICK_MACRO_ESCAPING' })]);
  });
});
