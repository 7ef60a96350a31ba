import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';
import { SINGLE_TAG_KINDS, type SingleTagKind } from '@contracts/domain';
import { MACRO_REGISTRY, type AdServerMacros } from '../macros/macro.registry';
import { buildTag, tagErrors, type TagInputs } from './tag.builder';
import type { SingleTagOptions } from './tag.model';

type Node = DefaultTreeAdapterMap['childNode'];
type Element = DefaultTreeAdapterMap['element'];

const BASE = 'http://ads.example.test';
const placement = { mediaPlanId: 7, placementId: 42, placementName: 'Home 300x250', siteName: 'Northmart', dimension: '300x250' };

const options = (overrides: Partial<SingleTagOptions> = {}): SingleTagOptions => ({
  kind: 'rich-media',
  campaignId: 5,
  adServerId: 'gam',
  includeAdChoices: false,
  additionalParamsJson: '',
  privacy: [],
  secureTags: false,
  dataSignalMap: {},
  enableNoScriptTag: false,
  enableForMobileApp: false,
  isDynamicPriVideo: false,
  useCustomLayout: false,
  ...overrides,
});

const inputs = (o: SingleTagOptions, campaignSignals: Record<string, string> = {}): TagInputs => ({
  options: o,
  macros: MACRO_REGISTRY[o.adServerId],
  placement,
  tagMetadataId: 99,
  publicBaseUrl: BASE,
  campaignSignals,
});

/** Every element of a tag, parsed as a browser without scripting would (so noscript content is markup). */
function elements(html: string): Element[] {
  const found: Element[] = [];
  const walk = (nodes: Node[]) => {
    for (const node of nodes) {
      if ('tagName' in node) {
        found.push(node);
        walk(node.childNodes);
      }
    }
  };
  walk(parseFragment(html, { scriptingEnabled: false }).childNodes as Node[]);
  return found;
}
const attr = (element: Element, name: string) => element.attrs.find((a) => a.name === name)?.value;

/**
 * The query as the ad server sees it before expanding macros: pairs split on & and =, names
 * decoded, values left as written (an unexpanded macro like %%CACHEBUSTER%% is not percent-encoding).
 */
const rawPairs = (url: URL): [string, string][] =>
  url.search
    .slice(1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return [decodeURIComponent(pair.slice(0, eq)), pair.slice(eq + 1)];
    });
const valuesOf = (url: URL, name: string) =>
  rawPairs(url)
    .filter(([n]) => n === name)
    .map(([, v]) => v);

const scriptUrl = (tag: string): URL => {
  const script = elements(tag).find((e) => e.tagName === 'script' && attr(e, 'src') !== 'mraid.js');
  const src = script && attr(script, 'src');
  if (!src) throw new Error(`no script src in ${tag}`);
  return new URL(src);
};

const SCRIPT_KINDS = SINGLE_TAG_KINDS.filter((k) => k !== 'video/in-stream');
const kindExtras = (kind: SingleTagKind): Partial<SingleTagOptions> =>
  kind === 'native' ? { adUnitId: 3, additionalParamsJson: '{"responseFormat":2}' } : kind === 'video/mobile/in-web' ? { baseAdUnitId: 11 } : {};
const scriptServers = Object.values(MACRO_REGISTRY).filter((m) => !m.urlOnly);

describe('buildTag', () => {
  describe.each(scriptServers.map((m) => [m.adServerId, m] as [string, AdServerMacros]))('on %s', (adServerId, macros) => {
    it.each(SCRIPT_KINDS)('writes a %s tag as one script element whose src carries the placement and the ad server macros verbatim', (kind) => {
      const o = options({ kind, adServerId, ...kindExtras(kind) });
      expect(tagErrors(o, macros)).toEqual([]);
      const { tagValue } = buildTag(inputs(o));
      const scripts = elements(tagValue).filter((e) => e.tagName === 'script');
      expect(scripts).toHaveLength(1);
      const url = scriptUrl(tagValue);
      expect(url.origin).toBe(BASE);
      expect(url.pathname).toBe(`/serve/v1/tags/${kind.replace(/\//g, '-')}.js`);
      expect(Object.fromEntries(rawPairs(url).filter(([n]) => ['plc', 'mp', 'cmp', 'tm', 'as'].includes(n)))).toEqual({
        plc: '42',
        mp: '7',
        cmp: '5',
        tm: '99',
        as: adServerId,
      });
      expect(valuesOf(url, 'cb')).toEqual(macros.cacheBusterMacro ? [macros.cacheBusterMacro] : []);
      expect(valuesOf(url, 'click')).toEqual(macros.clickMacro ? [macros.clickMacro] : []);
      if (macros.clickEncoding === 'raw') expect(rawPairs(url).at(-1)).toEqual(['click', macros.clickMacro]);
    });

    it('gives the ad server a tag whose click and cache-buster parameters read back once it expands its macros', () => {
      const { tagValue } = buildTag(inputs(options({ adServerId })));
      const landing = 'https://click.example/c?id=1&x=2';
      let src = attr(elements(tagValue).find((e) => e.tagName === 'script') as Element, 'src') as string;
      if (macros.cacheBusterMacro) src = src.replace(macros.cacheBusterMacro, '1234567');
      if (macros.clickMacro) src = src.replace(macros.clickMacro, macros.clickEncoding === 'encoded' ? encodeURIComponent(landing) : landing);
      const expanded = new URL(src);
      if (macros.cacheBusterMacro) expect(expanded.searchParams.get('cb')).toBe('1234567');
      if (macros.clickMacro && macros.clickEncoding === 'encoded') expect(expanded.searchParams.get('click')).toBe(landing);
      // A raw click URL runs to the end: the serving path reads everything after click=.
      if (macros.clickMacro && macros.clickEncoding === 'raw') expect(expanded.search.slice(expanded.search.indexOf('click=') + 'click='.length)).toBe(landing);
    });
  });

  describe.each(
    Object.values(MACRO_REGISTRY)
      .filter((m) => m.urlOnly)
      .map((m) => [m.adServerId, m] as [string, AdServerMacros]),
  )('on %s, which takes URLs', (adServerId, macros) => {
    it.each(SINGLE_TAG_KINDS)('writes a %s tag as a URL of the platform, with the server macros verbatim', (kind) => {
      const o = options({ kind, adServerId, dataSignalMap: { venue: macros.macroExample }, ...kindExtras(kind) });
      expect(tagErrors(o, macros)).toEqual([]);
      const { tagValue } = buildTag(inputs(o));
      expect(elements(tagValue)).toEqual([]);
      const url = new URL(tagValue);
      expect(url.origin).toBe(BASE);
      expect(url.pathname).toBe(kind === 'video/in-stream' ? '/serve/v1/vast/in-stream.xml' : `/serve/v1/ads/${kind.replace(/\//g, '-')}.html`);
      expect(valuesOf(url, 'ds_venue')).toEqual([macros.macroExample]);
      expect(valuesOf(url, 'cb')).toEqual(macros.cacheBusterMacro ? [macros.cacheBusterMacro] : []);
      expect(valuesOf(url, 'as')).toEqual([adServerId]);
    });
  });

  it('writes an in-stream tag as a VAST URL, with the player and tag type, and no click macro (the player clicks through VAST)', () => {
    const o = options({ kind: 'video/in-stream', adServerId: 'dv360', tagType: 'VAST 4.2', playerType: { name: 'jwplayer', version: '8.1' } });
    const { tagValue } = buildTag(inputs(o));
    const url = new URL(tagValue);
    expect(url.pathname).toBe('/serve/v1/vast/in-stream.xml');
    expect(url.searchParams.get('vtt')).toBe('VAST 4.2');
    expect(url.searchParams.get('player')).toBe('jwplayer');
    expect(url.searchParams.get('player_version')).toBe('8.1');
    expect(valuesOf(url, 'cb')).toEqual(['${CACHEBUSTER}']);
    expect(url.searchParams.has('click')).toBe(false);
  });

  it('puts each privacy parameter in exactly once, with the IAB macros', () => {
    const privacy = [
      { include: true, type: 'GDPRv2', consentMacro: '${GDPR_CONSENT_755}' },
      { include: true, type: 'ccpa' },
      { include: true, type: 'gpp', consentMacro: '${GPP_STRING_7}' },
    ];
    for (const kind of SINGLE_TAG_KINDS) {
      const o = options({ kind, adServerId: 'xandr', privacy, ...kindExtras(kind) });
      expect(tagErrors(o, MACRO_REGISTRY.xandr)).toEqual([]);
      const { tagValue } = buildTag(inputs(o));
      const url = kind === 'video/in-stream' ? new URL(tagValue) : scriptUrl(tagValue);
      expect(valuesOf(url, 'gdpr')).toEqual(['${GDPR}']);
      expect(valuesOf(url, 'gdpr_consent')).toEqual(['${GDPR_CONSENT_755}']);
      expect(valuesOf(url, 'us_privacy')).toEqual(['${US_PRIVACY}']);
      expect(valuesOf(url, 'gpp')).toEqual(['${GPP_STRING_7}']);
      expect(valuesOf(url, 'gpp_sid')).toEqual(['${GPP_SID}']);
    }
    const excluded = buildTag(inputs(options({ privacy: [{ include: false, type: 'GDPRv2' }] })));
    expect(valuesOf(scriptUrl(excluded.tagValue), 'gdpr')).toEqual([]);
  });

  it('makes every URL of the tag https when secureTags asks, upgrading a third-party script src and saying so', () => {
    const o = options({
      secureTags: true,
      enableNoScriptTag: true,
      thirdPartyTrackingScript: '<script src="http://tracker.example/t.js?c=%%CACHEBUSTER%%"></script>',
    });
    expect(tagErrors(o, MACRO_REGISTRY.gam)).toEqual([]);
    const { tagValue, notes } = buildTag(inputs(o));
    const urls = elements(tagValue).flatMap((e) => [attr(e, 'src'), attr(e, 'href')].filter((v): v is string => v !== undefined));
    expect(urls).toHaveLength(4);
    for (const url of urls) expect(new URL(url).protocol).toBe('https:');
    expect(notes).toEqual([expect.stringContaining('upgraded to https://tracker.example/t.js')]);
    const plain = buildTag(inputs(options({ enableNoScriptTag: true })));
    expect(
      elements(plain.tagValue)
        .flatMap((e) => [attr(e, 'src'), attr(e, 'href')].filter(Boolean))
        .every((u) => u?.startsWith('http://')),
    ).toBe(true);
  });

  it('adds a noscript fallback: a click-through link around an image of the placement size', () => {
    const { tagValue } = buildTag(inputs(options({ adServerId: 'gam', enableNoScriptTag: true })));
    const noscript = elements(tagValue).find((e) => e.tagName === 'noscript') as Element;
    const link = noscript.childNodes.find((n) => 'tagName' in n && n.tagName === 'a') as Element;
    const image = link.childNodes.find((n) => 'tagName' in n && n.tagName === 'img') as Element;
    const href = new URL(attr(link, 'href') as string);
    expect(href.pathname).toBe('/serve/v1/click');
    expect(valuesOf(href, 'click')).toEqual(['%%CLICK_URL_ESC%%']);
    const src = new URL(attr(image, 'src') as string);
    expect(src.pathname).toBe('/serve/v1/img/rich-media.png');
    expect(src.searchParams.get('plc')).toBe('42');
    expect([attr(image, 'width'), attr(image, 'height')]).toEqual(['300', '250']);
    expect(elements(buildTag(inputs(options())).tagValue).some((e) => e.tagName === 'noscript')).toBe(false);
  });

  it('loads mraid.js first for a mobile-app rich-media tag and passes the responsive options', () => {
    const o = options({
      enableForMobileApp: true,
      mobileResponsiveOptions: { include: true, mobileFlexCreativeUnitType: 2, bannerType: 'sticky' },
      includeAdChoices: true,
    });
    const { tagValue } = buildTag(inputs(o));
    const scripts = elements(tagValue).filter((e) => e.tagName === 'script');
    expect(attr(scripts[0], 'src')).toBe('mraid.js');
    const url = scriptUrl(tagValue);
    expect(['mraid', 'resp', 'flex', 'banner', 'adchoices'].map((n) => url.searchParams.get(n))).toEqual(['1', '1', '2', 'sticky', '1']);
  });

  it("puts each data signal's macro in the tag: the campaign's tag variable maps, overridden by dataSignalMap", () => {
    const o = options({ adServerId: 'gam', dataSignalMap: { store: '%%PATTERN:shop%%' } });
    const url = scriptUrl(buildTag(inputs(o, { store: '%%PATTERN:store%%', city: '%%PATTERN:city%%' })).tagValue);
    expect(valuesOf(url, 'ds_store')).toEqual(['%%PATTERN:shop%%']);
    expect(valuesOf(url, 'ds_city')).toEqual(['%%PATTERN:city%%']);
  });

  it('gives an ad server that takes URLs a URL, not a script element', () => {
    const { tagValue, notes } = buildTag(inputs(options({ adServerId: 'meta', dataSignalMap: { ad: '{{ad.id}}' } })));
    const url = new URL(tagValue);
    expect(url.pathname).toBe('/serve/v1/ads/rich-media.html');
    expect(valuesOf(url, 'ds_ad')).toEqual(['{{ad.id}}']);
    expect(notes).toEqual([expect.stringContaining('URL')]);
  });

  it('appends a third-party tracking URL as a script element after the tag', () => {
    const { tagValue } = buildTag(inputs(options({ thirdPartyTrackingScript: 'https://tracker.example/p.js?gdpr=${GDPR}' })));
    const scripts = elements(tagValue).filter((e) => e.tagName === 'script');
    expect(scripts.map((s) => new URL(attr(s, 'src') as string).host)).toEqual(['ads.example.test', 'tracker.example']);
  });
});

describe('tagErrors', () => {
  const pointersOf = (o: SingleTagOptions, adServerId = o.adServerId) =>
    tagErrors(o, MACRO_REGISTRY[adServerId]).map((e) => `${'pointer' in e ? e.pointer : ''} ${e.code}`);

  it('refuses a GDPR entry whose consent macro has no numeric vendor id, a duplicate entry and an unknown type', () => {
    expect(pointersOf(options({ privacy: [{ include: true, type: 'GDPRv2', consentMacro: '${GDPR_CONSENT}' }] }))).toEqual([
      '/privacy/0/consentMacro INVALID_FORMAT',
    ]);
    expect(pointersOf(options({ privacy: [{ include: true, type: 'GDPRv2' }] }))).toEqual(['/privacy/0/consentMacro INVALID_FORMAT']);
    expect(
      pointersOf(
        options({
          privacy: [
            { include: true, type: 'ccpa' },
            { include: false, type: 'ccpa' },
          ],
        }),
      ),
    ).toEqual(['/privacy/1/type DUPLICATE']);
    expect(pointersOf(options({ privacy: [{ include: true, type: 'tcf1' }] }))).toEqual(['/privacy/0/type NOT_ALLOWED']);
  });

  it("refuses a data signal macro in another ad server's syntax", () => {
    expect(pointersOf(options({ adServerId: 'gam', dataSignalMap: { store: '${STORE}' } }))).toEqual(['/dataSignalMap/store MACRO_SYNTAX']);
    expect(pointersOf(options({ adServerId: 'xandr', dataSignalMap: { store: '${STORE}' } }))).toEqual([]);
  });

  it('lints third-party scripts against the ad server they run in', () => {
    expect(pointersOf(options({ adServerId: 'gam', thirdPartyTrackingScript: 'https://t.example/p?cb=${CACHEBUSTER}' }))).toEqual([
      '/thirdPartyTrackingScript FOREIGN_MACRO',
    ]);
    expect(pointersOf(options({ thirdPartyTrackingScript: 'https://t.example/p?c=${GDPR_CONSENT_XX}' }))).toEqual([
      '/thirdPartyTrackingScript CONSENT_MACRO_WITHOUT_VENDOR',
    ]);
    expect(pointersOf(options({ thirdPartyTrackingScript: '<img src="https://t.example/p.gif">' }))).toEqual(['/thirdPartyTrackingScript INVALID_FORMAT']);
    expect(pointersOf(options({ thirdPartyTrackingScript: 'javascript:alert(1)' }))).toEqual(['/thirdPartyTrackingScript INVALID_FORMAT']);
    expect(pointersOf(options({ secureTags: true, thirdPartyTrackingScript: '<script>new Image().src="http://t.example/p"</script>' }))).toEqual([
      '/thirdPartyTrackingScript INSECURE_URL',
    ]);
    expect(pointersOf(options({ adServerId: 'meta', thirdPartyTrackingScript: 'https://t.example/p.js' }))).toEqual([
      '/thirdPartyTrackingScript NOT_SUPPORTED',
    ]);
  });

  it('asks native tags for adUnitId and an integer responseFormat, mobile in-web for baseAdUnitId, and keeps the tag parameters its own', () => {
    expect(pointersOf(options({ kind: 'native', additionalParamsJson: '{"responseFormat":"x"}' }))).toEqual([
      '/adUnitId REQUIRED',
      '/additionalParams/responseFormat INVALID_TYPE',
    ]);
    expect(pointersOf(options({ kind: 'video/mobile/in-web' }))).toEqual(['/baseAdUnitId REQUIRED']);
    expect(pointersOf(options({ additionalParamsJson: '{"click":"x","deep":{"a":1},"ok":"fine"}' }))).toEqual([
      '/additionalParams/click NOT_ALLOWED',
      '/additionalParams/deep INVALID_TYPE',
    ]);
  });
});
