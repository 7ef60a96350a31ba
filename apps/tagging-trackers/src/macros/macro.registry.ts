/**
 * How each ad server of the catalog writes its macros into a third-party tag. An ad server replaces
 * its macros as literal text before the tag runs, so a macro must reach the tag verbatim (never
 * percent-encoded) and in that server's own syntax.
 *
 * - `clickMacro` expands to the ad server's click-tracking URL. `encoded` ones expand already
 *   percent-encoded and may sit anywhere in a query; `raw` ones expand to a bare URL, so the tag puts
 *   them last (`click=` runs to the end of the URL) and the serving path reads them that way.
 * - `cacheBusterMacro` expands to a random number per impression.
 * - `macroPattern` is the syntax of the server's own macros: tag variable maps and dataSignalMap
 *   entries must match it, and a third-party script using another server's syntax is refused.
 * - `urlOnly` servers take a tag as a URL, not a script element.
 */
export interface AdServerMacros {
  adServerId: string;
  clickMacro: string | null;
  clickEncoding: 'encoded' | 'raw';
  /** Click macros that expand to a bare URL: inside a query they must be the last parameter. */
  rawClickMacros: string[];
  cacheBusterMacro: string | null;
  macroPattern: RegExp;
  /** A macro in the server's syntax, for error messages. */
  macroExample: string;
  urlOnly: boolean;
}

const dollarBraces = /^\$\{[A-Z][A-Z0-9_]*\}$/;

export const MACRO_REGISTRY: Readonly<Record<string, AdServerMacros>> = {
  'onsite-rm': {
    adServerId: 'onsite-rm',
    clickMacro: '{{CLICK_URL_ENC}}',
    clickEncoding: 'encoded',
    rawClickMacros: ['{{CLICK_URL}}'],
    cacheBusterMacro: '{{CACHEBUSTER}}',
    macroPattern: /^\{\{[A-Z][A-Z0-9_]*\}\}$/,
    macroExample: '{{STORE_ID}}',
    urlOnly: false,
  },
  gam: {
    adServerId: 'gam',
    clickMacro: '%%CLICK_URL_ESC%%',
    clickEncoding: 'encoded',
    rawClickMacros: ['%%CLICK_URL_UNESC%%'],
    cacheBusterMacro: '%%CACHEBUSTER%%',
    macroPattern: /^%%(?:PATTERN:[A-Za-z0-9_]+|[A-Z][A-Z0-9_]*)%%$/,
    macroExample: '%%PATTERN:store%%',
    urlOnly: false,
  },
  cm360: {
    adServerId: 'cm360',
    clickMacro: '%c',
    clickEncoding: 'raw',
    rawClickMacros: ['%c'],
    cacheBusterMacro: '%n',
    macroPattern: /^%[a-z][a-z0-9_]*!$/,
    macroExample: '%esid!',
    urlOnly: false,
  },
  xandr: {
    adServerId: 'xandr',
    clickMacro: '${CLICK_URL_ENC}',
    clickEncoding: 'encoded',
    rawClickMacros: ['${CLICK_URL}'],
    cacheBusterMacro: '${CACHEBUSTER}',
    macroPattern: dollarBraces,
    macroExample: '${STORE_ID}',
    urlOnly: false,
  },
  ttd: {
    adServerId: 'ttd',
    clickMacro: '%%TTD_CLK_ESC%%',
    clickEncoding: 'encoded',
    rawClickMacros: ['%%TTD_CLK%%'],
    cacheBusterMacro: '%%TTD_CACHEBUSTER%%',
    macroPattern: /^%%TTD_[A-Z0-9_]+%%$/,
    macroExample: '%%TTD_SITE%%',
    urlOnly: false,
  },
  dv360: {
    adServerId: 'dv360',
    clickMacro: '${CLICK_URL_ENC}',
    clickEncoding: 'encoded',
    rawClickMacros: ['${CLICK_URL}'],
    cacheBusterMacro: '${CACHEBUSTER}',
    macroPattern: dollarBraces,
    macroExample: '${SOURCE_URL_ENC}',
    urlOnly: false,
  },
  meta: {
    adServerId: 'meta',
    clickMacro: null,
    clickEncoding: 'encoded',
    rawClickMacros: [],
    cacheBusterMacro: null,
    macroPattern: /^\{\{[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*\}\}$/,
    macroExample: '{{ad.id}}',
    urlOnly: true,
  },
  pinterest: {
    adServerId: 'pinterest',
    clickMacro: null,
    clickEncoding: 'encoded',
    rawClickMacros: [],
    cacheBusterMacro: null,
    macroPattern: /^\{[a-z][a-z_]*\}$/,
    macroExample: '{campaign_id}',
    urlOnly: true,
  },
  vistar: {
    adServerId: 'vistar',
    clickMacro: null,
    clickEncoding: 'encoded',
    rawClickMacros: [],
    cacheBusterMacro: '[CACHEBUSTER]',
    macroPattern: /^\[[A-Z][A-Z0-9_]*\]$/,
    macroExample: '[VENUE_ID]',
    urlOnly: true,
  },
};

/** Privacy macros are the IAB's, the same on every ad server. */
export const PRIVACY_MACROS = {
  gdpr: '${GDPR}',
  usPrivacy: '${US_PRIVACY}',
  gppSid: '${GPP_SID}',
} as const;

export const macrosOf = (adServerId: string): AdServerMacros | undefined => MACRO_REGISTRY[adServerId];

/** Every macro-looking token in a text, in any ad server's syntax (and the IAB privacy syntax). */
const MACRO_TOKEN = /%%[A-Za-z0-9_:]+%%|\$\{[A-Za-z0-9_]+\}|\{\{[A-Za-z0-9_.]+\}\}|%[a-z][a-z0-9_]*!|\[[A-Z][A-Z0-9_]*\]/g;
const IAB_MACRO = /^\$\{(?:GDPR|GDPR_CONSENT_[1-9][0-9]{0,5}|US_PRIVACY|GPP_STRING_[1-9][0-9]{0,5}|GPP_SID|ADDTL_CONSENT)\}$/;
const IAB_LOOKALIKE = /^\$\{(?:GDPR_CONSENT|GPP_STRING)(?:_[^}]*)?\}$/;

export interface MacroFinding {
  macro: string;
  problem: 'FOREIGN_MACRO' | 'CONSENT_MACRO_WITHOUT_VENDOR' | 'CLICK_MACRO_ESCAPING';
  detail: string;
}

/**
 * The macros of a third-party script or tracker that will not expand where it runs: another ad
 * server's syntax, or a consent macro without a numeric vendor id.
 */
export function lintMacros(text: string, macros: AdServerMacros): MacroFinding[] {
  const findings: MacroFinding[] = [];
  for (const [macro] of text.matchAll(MACRO_TOKEN)) {
    if (IAB_MACRO.test(macro)) continue;
    if (IAB_LOOKALIKE.test(macro)) {
      findings.push({ macro, problem: 'CONSENT_MACRO_WITHOUT_VENDOR', detail: `${macro} must name a numeric vendor id, e.g. \${GDPR_CONSENT_755}.` });
      continue;
    }
    if (macros.macroPattern.test(macro) || macro === macros.clickMacro || macro === macros.cacheBusterMacro || macros.rawClickMacros.includes(macro)) continue;
    findings.push({
      macro,
      problem: 'FOREIGN_MACRO',
      detail: `${macro} is not a macro of ad server ${macros.adServerId}, which writes macros like ${macros.macroExample}.`,
    });
  }
  for (const raw of macros.rawClickMacros) {
    // A bare click URL followed by more parameters would swallow them (its own ? and & end up in ours).
    if (!new RegExp(`[?&][^=&?#]+=${escapeRegExp(raw)}&`).test(text)) continue;
    const escaped = macros.clickEncoding === 'encoded' ? ` or the escaped ${macros.clickMacro}` : '';
    findings.push({
      macro: raw,
      problem: 'CLICK_MACRO_ESCAPING',
      detail: `${raw} expands to an unescaped URL: inside a query it must be the last parameter${escaped}.`,
    });
  }
  return findings;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
