import {
  ADDITIONAL_PARAMS_MAX_BYTES,
  BANNER_TYPE_MAX,
  DATA_SIGNAL_MAP_MAX_ENTRIES,
  DATA_SIGNAL_MAX,
  DATA_SIGNAL_PATTERN,
  GDPR_CONSENT_MACRO_PATTERN,
  GPP_STRING_MACRO_PATTERN,
  PLAYER_FIELD_MAX,
  PRIVACY_ENTRIES_MAX,
  PRIVACY_TYPES,
  SINGLE_TAG_KINDS,
  TAG_TYPE_MAX,
  THIRD_PARTY_SCRIPT_MAX,
  type SingleTagKind,
} from '@contracts/domain';
import { notOneOf, type FieldError, type FieldErrorCode } from '@platform/errors';
import { PRIVACY_MACROS, type AdServerMacros } from '../macros/macro.registry';
import { jsonObjectErrors } from '../rules/field-rules';
import type { SingleTagOptions, TagPlacement } from './tag.model';
import { checkThirdPartyScript } from './third-party-script';

/**
 * Where tags point, under PUBLIC_BASE_URL. The serving service answers these paths; every tag
 * carries the same query (placement, plan, campaign, tag metadata id, ad server, then the options):
 *
 * - `/serve/v1/tags/<kind>.js`: the script a script tag loads (rich-media, video-in-banner,
 *   video-mobile-in-web, native).
 * - `/serve/v1/ads/<kind>.html`: the same ad as an HTML document, for ad servers that take a URL.
 * - `/serve/v1/vast/in-stream.xml`: the VAST document of an in-stream video tag.
 * - `/serve/v1/img/<kind>.png` and `/serve/v1/click`: the noscript fallback's image and click-through.
 */
export const SERVE_PATHS = {
  script: (kind: SingleTagKind) => `/serve/v1/tags/${kind.replace(/\//g, '-')}.js`,
  document: (kind: SingleTagKind) => `/serve/v1/ads/${kind.replace(/\//g, '-')}.html`,
  image: (kind: SingleTagKind) => `/serve/v1/img/${kind.replace(/\//g, '-')}.png`,
  vast: '/serve/v1/vast/in-stream.xml',
  click: '/serve/v1/click',
} as const;

/** Query names the tag itself sets; additionalParams may not reuse them. */
const RESERVED_PARAMS = new Set([
  'plc',
  'mp',
  'cmp',
  'tm',
  'as',
  'au',
  'cb',
  'click',
  'gdpr',
  'gdpr_consent',
  'us_privacy',
  'gpp',
  'gpp_sid',
  'adchoices',
  'mraid',
  'resp',
  'flex',
  'banner',
  'vtt',
  'player',
  'player_version',
  'dpv',
  'bau',
  'baut',
  'layout',
  'rf',
  'noscript',
]);
const PARAM_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const PARAM_VALUE_MAX = 256;

export interface TagInputs {
  options: SingleTagOptions;
  macros: AdServerMacros;
  placement: TagPlacement;
  tagMetadataId: number;
  publicBaseUrl: string;
  /** The campaign's tag variable maps on this ad server: data signal to macro. */
  campaignSignals: Record<string, string>;
}

export interface BuiltTag {
  tagValue: string;
  notes: string[];
}

/** One query pair; a macro is written verbatim so the ad server can find and expand it. */
type Pair = [name: string, value: string, verbatim: boolean];

const literal = (name: string, value: string | number): Pair => [name, String(value), false];
const macro = (name: string, value: string): Pair => [name, value, true];

const at = (pointer: string, code: FieldErrorCode, detail: string): FieldError => ({ pointer, code, detail });

function privacyErrors(options: SingleTagOptions): FieldError[] {
  const errors: FieldError[] = [];
  if (options.privacy.length > PRIVACY_ENTRIES_MAX) errors.push(at('/privacy', 'TOO_MANY_ITEMS', `privacy may hold at most ${PRIVACY_ENTRIES_MAX} entries.`));
  const seen = new Set<string>();
  options.privacy.forEach((entry, i) => {
    const pointer = `/privacy/${i}`;
    errors.push(...notOneOf(`${pointer}/type`, entry.type, PRIVACY_TYPES));
    if (seen.has(entry.type)) errors.push(at(`${pointer}/type`, 'DUPLICATE', `privacy names ${entry.type} more than once.`));
    seen.add(entry.type);
    if (!entry.include) return;
    const consent = entry.consentMacro;
    if (entry.type === 'GDPRv2' && (consent === undefined || !new RegExp(GDPR_CONSENT_MACRO_PATTERN).test(consent))) {
      errors.push(
        at(
          `${pointer}/consentMacro`,
          'INVALID_FORMAT',
          'consentMacro must be ${GDPR_CONSENT_<vendor id>} with a numeric IAB vendor id, e.g. ${GDPR_CONSENT_755}.',
        ),
      );
    }
    if (entry.type === 'gpp' && (consent === undefined || !new RegExp(GPP_STRING_MACRO_PATTERN).test(consent))) {
      errors.push(at(`${pointer}/consentMacro`, 'INVALID_FORMAT', 'consentMacro must be ${GPP_STRING_<id>} with a numeric id, e.g. ${GPP_STRING_755}.'));
    }
    if (entry.type === 'ccpa' && consent !== undefined) errors.push(at(`${pointer}/consentMacro`, 'NOT_ALLOWED', 'A ccpa entry carries no consentMacro.'));
  });
  return errors;
}

function signalErrors(options: SingleTagOptions, macros: AdServerMacros): FieldError[] {
  const entries = Object.entries(options.dataSignalMap);
  if (entries.length > DATA_SIGNAL_MAP_MAX_ENTRIES)
    return [at('/dataSignalMap', 'TOO_MANY_ITEMS', `dataSignalMap may hold at most ${DATA_SIGNAL_MAP_MAX_ENTRIES} entries.`)];
  return entries.flatMap(([signal, value]) => {
    const pointer = `/dataSignalMap/${signal.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (signal.length > DATA_SIGNAL_MAX || !new RegExp(DATA_SIGNAL_PATTERN).test(signal)) {
      return [at(pointer, 'INVALID_FORMAT', 'A data signal name starts with a letter and holds only letters, digits, _ . - (at most 100).')];
    }
    return macros.macroPattern.test(value)
      ? []
      : [
          at(
            pointer,
            'MACRO_SYNTAX',
            `${JSON.stringify(value)} is not a macro of ad server ${macros.adServerId}, which writes macros like ${macros.macroExample}.`,
          ),
        ];
  });
}

/** additionalParams: flat name to scalar, names not clashing with the tag's own parameters. */
function additionalPairs(options: SingleTagOptions): { errors: FieldError[]; pairs: Pair[] } {
  const parsed = jsonObjectErrors('/additionalParams', options.additionalParamsJson, ADDITIONAL_PARAMS_MAX_BYTES);
  if (!parsed.value) return { errors: parsed.errors, pairs: [] };
  const errors: FieldError[] = [];
  const pairs: Pair[] = [];
  for (const [name, value] of Object.entries(parsed.value)) {
    const pointer = `/additionalParams/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (name === 'responseFormat' && options.kind === 'native') {
      if (!Number.isSafeInteger(value) || (value as number) < 0) errors.push(at(pointer, 'INVALID_TYPE', 'responseFormat must be a non-negative integer.'));
      else pairs.push(literal('rf', value as number));
      continue;
    }
    if (!PARAM_NAME.test(name) || RESERVED_PARAMS.has(name)) {
      errors.push(at(pointer, 'NOT_ALLOWED', `${name} is not a usable parameter name (letters, digits, _; not one of the tag's own).`));
    } else if (typeof value === 'string' ? value.length > PARAM_VALUE_MAX : typeof value !== 'number' && typeof value !== 'boolean') {
      errors.push(at(pointer, 'INVALID_TYPE', `additionalParams values are strings (at most ${PARAM_VALUE_MAX} characters), numbers or booleans.`));
    } else {
      pairs.push(literal(name, String(value)));
    }
  }
  return { errors, pairs };
}

function kindErrors(options: SingleTagOptions): FieldError[] {
  const errors: FieldError[] = [...notOneOf('/kind', options.kind, SINGLE_TAG_KINDS)];
  const tooLong = (pointer: string, value: string | undefined, max: number) =>
    value !== undefined && value.length > max ? [at(pointer, 'TOO_LONG', `${pointer.slice(1).replace(/\//g, '.')} must be at most ${max} characters.`)] : [];
  errors.push(...tooLong('/tagType', options.tagType, TAG_TYPE_MAX));
  errors.push(...tooLong('/playerType/name', options.playerType?.name, PLAYER_FIELD_MAX));
  errors.push(...tooLong('/playerType/version', options.playerType?.version, PLAYER_FIELD_MAX));
  errors.push(...tooLong('/mobileResponsiveOptions/bannerType', options.mobileResponsiveOptions?.bannerType, BANNER_TYPE_MAX));
  errors.push(...tooLong('/thirdPartyTrackingScript', options.thirdPartyTrackingScript, THIRD_PARTY_SCRIPT_MAX));
  if (options.kind === 'native' && options.adUnitId === undefined) errors.push(at('/adUnitId', 'REQUIRED', 'adUnitId is required for a native tag.'));
  if (options.kind === 'video/mobile/in-web' && options.baseAdUnitId === undefined) {
    errors.push(at('/baseAdUnitId', 'REQUIRED', 'baseAdUnitId is required for a mobile in-web video tag.'));
  }
  return errors;
}

function kindPairs(options: SingleTagOptions): Pair[] {
  const pairs: Pair[] = [];
  if (options.adUnitId !== undefined) pairs.push(literal('au', options.adUnitId));
  switch (options.kind) {
    case 'rich-media': {
      if (options.enableForMobileApp) pairs.push(literal('mraid', 1));
      const responsive = options.mobileResponsiveOptions;
      if (responsive?.include) {
        pairs.push(literal('resp', 1));
        if (responsive.mobileFlexCreativeUnitType !== undefined) pairs.push(literal('flex', responsive.mobileFlexCreativeUnitType));
        if (responsive.bannerType) pairs.push(literal('banner', responsive.bannerType));
      }
      break;
    }
    case 'video/in-stream':
      if (options.tagType) pairs.push(literal('vtt', options.tagType));
      if (options.playerType?.name) pairs.push(literal('player', options.playerType.name));
      if (options.playerType?.version) pairs.push(literal('player_version', options.playerType.version));
      break;
    case 'video/in-banner':
      if (options.isDynamicPriVideo) pairs.push(literal('dpv', 1));
      break;
    case 'video/mobile/in-web':
      if (options.baseAdUnitId !== undefined) pairs.push(literal('bau', options.baseAdUnitId));
      if (options.behaviourAdUnitTypeId !== undefined) pairs.push(literal('baut', options.behaviourAdUnitTypeId));
      if (options.useCustomLayout) pairs.push(literal('layout', 'custom'));
      break;
    case 'native':
      break;
  }
  return pairs;
}

/** Each included privacy entry's macros, each parameter once (duplicates were refused). */
function privacyPairs(options: SingleTagOptions): Pair[] {
  return options.privacy
    .filter((entry) => entry.include)
    .flatMap((entry): Pair[] => {
      if (entry.type === 'GDPRv2') return [macro('gdpr', PRIVACY_MACROS.gdpr), macro('gdpr_consent', entry.consentMacro as string)];
      if (entry.type === 'ccpa') return [macro('us_privacy', PRIVACY_MACROS.usPrivacy)];
      return [macro('gpp', entry.consentMacro as string), macro('gpp_sid', PRIVACY_MACROS.gppSid)];
    });
}

/** Every rule of a tag request that does not need stored data. */
export function tagErrors(options: SingleTagOptions, macros: AdServerMacros): FieldError[] {
  return [
    ...kindErrors(options),
    ...privacyErrors(options),
    ...signalErrors(options, macros),
    ...additionalPairs(options).errors,
    ...(options.thirdPartyTrackingScript !== undefined && macros.urlOnly
      ? [at('/thirdPartyTrackingScript', 'NOT_SUPPORTED', `Ad server ${macros.adServerId} takes tags as URLs; a third-party script cannot ride along.`)]
      : options.thirdPartyTrackingScript !== undefined
        ? checkThirdPartyScript(options.thirdPartyTrackingScript, macros, options.secureTags).errors
        : []),
  ];
}

const query = (pairs: Pair[]) =>
  pairs.map(([name, value, verbatim]) => `${encodeURIComponent(name)}=${verbatim ? value : encodeURIComponent(value)}`).join('&');

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The base every URL of the tag starts with: https when secureTags asks, whatever the configured scheme. */
function tagBase(publicBaseUrl: string, secure: boolean): string {
  const base = new URL(publicBaseUrl);
  if (secure) base.protocol = 'https:';
  return base.toString().replace(/\/$/, '');
}

/**
 * The tag of a request that passed tagErrors. In-stream tags are VAST URLs; the other kinds are
 * script elements, or a URL for ad servers that take only URLs. A raw click macro goes last, since
 * it expands to a bare URL that runs to the end of the tag's URL.
 */
export function buildTag(inputs: TagInputs): BuiltTag {
  const { options, macros, placement } = inputs;
  const notes: string[] = [];
  const base = tagBase(inputs.publicBaseUrl, options.secureTags);
  const signals = { ...inputs.campaignSignals, ...options.dataSignalMap };
  const pairs: Pair[] = [
    literal('plc', placement.placementId),
    literal('mp', placement.mediaPlanId),
    literal('cmp', options.campaignId),
    literal('tm', inputs.tagMetadataId),
    literal('as', macros.adServerId),
    ...kindPairs(options),
    ...Object.entries(signals).map(([signal, value]) => macro(`ds_${signal}`, value)),
    ...additionalPairs(options).pairs,
    ...privacyPairs(options),
    ...(options.includeAdChoices ? [literal('adchoices', 1)] : []),
    ...(macros.cacheBusterMacro ? [macro('cb', macros.cacheBusterMacro)] : []),
  ];
  if (options.kind === 'video/in-stream') return { tagValue: `${base}${SERVE_PATHS.vast}?${query(pairs)}`, notes };

  const withClick = macros.clickMacro ? [...pairs, macro('click', macros.clickMacro)] : pairs;
  if (macros.urlOnly) {
    notes.push(`ad server ${macros.adServerId} takes tags as URLs, so tagValue is a URL`);
    if (options.enableNoScriptTag) notes.push('a URL tag needs no noscript fallback');
    return { tagValue: `${base}${SERVE_PATHS.document(options.kind)}?${query(withClick)}`, notes };
  }

  const parts: string[] = [];
  if (options.kind === 'rich-media' && options.enableForMobileApp) parts.push('<script src="mraid.js"></script>');
  parts.push(`<script type="text/javascript" src="${escapeAttribute(`${base}${SERVE_PATHS.script(options.kind)}?${query(withClick)}`)}"></script>`);
  if (options.enableNoScriptTag) {
    const [width, height] = placement.dimension.split('x');
    const noscript = [...pairs, literal('noscript', 1)];
    const clickThrough = macros.clickMacro ? [...noscript, macro('click', macros.clickMacro)] : noscript;
    parts.push(
      `<noscript><a href="${escapeAttribute(`${base}${SERVE_PATHS.click}?${query(clickThrough)}`)}" target="_blank">` +
        `<img src="${escapeAttribute(`${base}${SERVE_PATHS.image(options.kind)}?${query(noscript)}`)}" width="${width}" height="${height}" border="0" alt=""></a></noscript>`,
    );
  }
  if (options.thirdPartyTrackingScript !== undefined) {
    const checked = checkThirdPartyScript(options.thirdPartyTrackingScript, macros, options.secureTags).script;
    if (checked) {
      parts.push(checked.html);
      notes.push(...checked.fixes);
    }
  }
  return { tagValue: parts.join(''), notes };
}
