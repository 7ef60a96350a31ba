import { XMLParser } from 'fast-xml-parser';
import { vastSchemaErrors } from './vast-schema';
import { buildVastEmpty, buildVastInline, vastTime, type VastInlineInput } from './vast';
import { cdata, xmlEscape } from './xml';

async function expectValid(xml: string): Promise<void> {
  expect(await vastSchemaErrors(xml)).toEqual([]);
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name) => ['Impression', 'Tracking', 'ClickTracking', 'Error', 'MediaFile'].includes(name),
});
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const parse = (xml: string): any => parser.parse(xml);

const trackers = {
  inStreamImpressionTrackers: ['https://imp.example/i?ord=[CACHEBUSTING]', 'https://imp2.example/i?c=${CACHEBUSTER}'],
  videoStartViewedTracker: ['https://v.example/start?t=[TIMESTAMP]'],
  twentyFivePercentVideoViewedTracker: ['https://v.example/q1'],
  fiftyPercentVideoViewedTracker: ['https://v.example/mid'],
  seventyFivePercentVideoViewedTracker: ['https://v.example/q3'],
  hundredPercentVideoViewedTracker: ['https://v.example/done'],
  muteVideoViewedTracker: ['https://v.example/mute'],
  unmuteVideoViewedTracker: ['https://v.example/unmute'],
  inStreamSkipAdTracker: ['https://v.example/skip?g=${GDPR}&d=%%SITE%%'],
  primaryClickTracker: ['https://c.example/click?a=1&b=2'],
  secondaryClickTrackers: ['https://c2.example/click?cb=[CACHEBUSTING]'],
  bannerImpressionTrackers: ['https://banner.example/never-in-vast'],
};

const own = (e: string) => `https://ads.example/serve/v1/event?e=${e}&plc=12&id=srv-1`;

function input(overrides: Partial<VastInlineInput> = {}): VastInlineInput {
  return {
    adId: '12:SKU-1',
    adServingId: 'srv-1',
    adTitle: 'Shoes & Socks <Spring>',
    creativeId: 'SKU-1',
    durationSeconds: 15,
    mediaFile: { url: 'https://cdn.example/exports/12/SKU-1.mp4?sig=a&exp=1', width: 1920, height: 1080 },
    clickThrough: 'https://ads.example/serve/v1/click?plc=12&to=https%3A%2F%2Fshop.example%2Fp%3Fa%3D1%26b%3D2',
    own: {
      impression: own('impression'),
      error: 'https://ads.example/serve/v1/event?e=error&code=[ERRORCODE]',
      clickTracking: own('click'),
      events: {
        start: own('start'),
        firstQuartile: own('firstQuartile'),
        midpoint: own('midpoint'),
        thirdQuartile: own('thirdQuartile'),
        complete: own('complete'),
        mute: own('mute'),
        unmute: own('unmute'),
        skip: own('skip'),
      },
    },
    trackers,
    cacheBuster: '12345678',
    ...overrides,
  };
}

describe('buildVastInline', () => {
  const xml = buildVastInline(input());
  const doc = parse(xml);
  const ad = doc.VAST.Ad;
  const inline = ad.InLine;
  const creative = inline.Creatives.Creative;
  const linear = creative.Linear;

  it('validates against the VAST 4.2 XSD', async () => {
    await expectValid(xml);
  });

  it('is a VAST 4.2 document in the VAST namespace with one InLine ad', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(doc.VAST['@version']).toBe('4.2');
    expect(doc.VAST['@xmlns']).toBe('http://www.iab.com/VAST');
    expect(ad['@id']).toBe('12:SKU-1');
    expect(inline.AdSystem).toBe('RetailMediaAdServer');
    expect(inline.AdServingId).toBe('srv-1');
    expect(creative['@id']).toBe('SKU-1');
    expect(creative['@adId']).toBe('12:SKU-1');
    expect(creative.UniversalAdId).toEqual({ '#text': 'unknown', '@idRegistry': 'unknown' });
  });

  it('escapes the title', () => {
    expect(xml).toContain('<AdTitle>Shoes &amp; Socks &lt;Spring&gt;</AdTitle>');
    expect(inline.AdTitle).toBe('Shoes & Socks <Spring>');
  });

  it('has our impression first, then the placement in-stream impression trackers, with ids and cache busters expanded', () => {
    expect(inline.Impression).toEqual([
      { '@id': 'imp-0', '#text': own('impression') },
      { '@id': 'imp-1', '#text': 'https://imp.example/i?ord=12345678' },
      { '@id': 'imp-2', '#text': 'https://imp2.example/i?c=12345678' },
    ]);
    expect(xml).not.toContain('banner.example');
  });

  it('puts URLs in CDATA', () => {
    expect(xml).toContain('<Impression id="imp-0"><![CDATA[https://ads.example/serve/v1/event?e=impression&plc=12&id=srv-1]]></Impression>');
    expect(xml).toContain('<![CDATA[https://cdn.example/exports/12/SKU-1.mp4?sig=a&exp=1]]>');
  });

  it('keeps the Error URL with its [ERRORCODE] macro for the player', () => {
    expect(inline.Error).toEqual(['https://ads.example/serve/v1/event?e=error&code=[ERRORCODE]']);
  });

  it('tracks every event with our pixel and the placement trackers', () => {
    const byEvent = new Map<string, string[]>();
    for (const t of linear.TrackingEvents.Tracking) byEvent.set(t['@event'], [...(byEvent.get(t['@event']) ?? []), t['#text']]);
    expect(Object.fromEntries(byEvent)).toEqual({
      start: [own('start'), 'https://v.example/start?t=[TIMESTAMP]'],
      firstQuartile: [own('firstQuartile'), 'https://v.example/q1'],
      midpoint: [own('midpoint'), 'https://v.example/mid'],
      thirdQuartile: [own('thirdQuartile'), 'https://v.example/q3'],
      complete: [own('complete'), 'https://v.example/done'],
      mute: [own('mute'), 'https://v.example/mute'],
      unmute: [own('unmute'), 'https://v.example/unmute'],
      skip: [own('skip'), 'https://v.example/skip?g=$%7BGDPR%7D&d=%25%25SITE%25%25'],
    });
  });

  it('has the duration, the progressive mp4 media file and the clicks', () => {
    expect(linear.Duration).toBe('00:00:15.000');
    expect(linear['@skipoffset']).toBeUndefined();
    expect(linear.MediaFiles.MediaFile).toEqual([
      {
        '@delivery': 'progressive',
        '@type': 'video/mp4',
        '@width': '1920',
        '@height': '1080',
        '@maintainAspectRatio': 'true',
        '#text': 'https://cdn.example/exports/12/SKU-1.mp4?sig=a&exp=1',
      },
    ]);
    expect(linear.VideoClicks.ClickThrough).toEqual({ '@id': 'landing', '#text': input().clickThrough });
    expect(linear.VideoClicks.ClickTracking).toEqual([
      { '@id': 'click-0', '#text': own('click') },
      { '@id': 'click-1', '#text': 'https://c.example/click?a=1&b=2' },
      { '@id': 'click-2', '#text': 'https://c2.example/click?cb=12345678' },
    ]);
  });

  it('draws a fresh 8-digit cache buster per response when none is given', () => {
    const a = buildVastInline(input({ cacheBuster: undefined }));
    const b = buildVastInline(input({ cacheBuster: undefined }));
    const cbOf = (x: string) => /ord=(\d+)/.exec(x)?.[1];
    expect(cbOf(a)).toMatch(/^\d{8}$/);
    expect(cbOf(a)).not.toBe(cbOf(b));
    // one value for the whole response
    expect(a).toContain(`c=${cbOf(a)}`);
  });

  it('validates with a skip offset, a version, a bitrate, a registered ad id and no third-party trackers', async () => {
    const x = buildVastInline(
      input({
        skipOffsetSeconds: 5,
        durationSeconds: 30.5,
        adSystem: { name: 'Ad & Co', version: '1.2.0' },
        universalAdId: { idRegistry: 'ad-id.org', value: 'ABCD1234000H' },
        mediaFile: { url: 'https://cdn.example/v.mp4', width: 640, height: 360, bitrate: 800 },
        trackers: undefined,
      }),
    );
    await expectValid(x);
    const l = parse(x).VAST.Ad.InLine;
    expect(l.AdSystem).toEqual({ '#text': 'Ad & Co', '@version': '1.2.0' });
    expect(l.Creatives.Creative.Linear['@skipoffset']).toBe('00:00:05.000');
    expect(l.Creatives.Creative.Linear.Duration).toBe('00:00:30.500');
    expect(l.Creatives.Creative.Linear.MediaFiles.MediaFile[0]['@bitrate']).toBe('800');
    expect(l.Impression).toHaveLength(1);
  });

  it('validates with only the required parts (no error, no clicks, no events)', async () => {
    const x = buildVastInline(input({ own: { impression: own('impression') }, trackers: {}, clickThrough: null }));
    await expectValid(x);
    expect(x).not.toContain('<VideoClicks>');
    expect(x).not.toContain('<TrackingEvents>');
    expect(x).not.toContain('<Error>');
  });

  it('survives hostile text and URLs', async () => {
    const x = buildVastInline(
      input({
        adTitle: 'a]]>b "quoted" \'single\' \u0001 ctrl',
        adId: 'id"<&>',
        mediaFile: { url: 'https://cdn.example/v.mp4?x=]]>&y=<z>', width: 640, height: 360 },
        trackers: { primaryClickTracker: ['https://c.example/?q=]]><evil/>'] },
      }),
    );
    await expectValid(x);
    const d = parse(x).VAST.Ad;
    expect(d['@id']).toBe('id"<&>');
    expect(d.InLine.AdTitle).toBe('a]]>b "quoted" \'single\'  ctrl');
    expect(d.InLine.Creatives.Creative.Linear.MediaFiles.MediaFile[0]['#text']).toBe('https://cdn.example/v.mp4?x=%5D%5D%3E&y=%3Cz%3E');
    expect(d.InLine.Creatives.Creative.Linear.VideoClicks.ClickTracking[1]['#text']).toBe('https://c.example/?q=%5D%5D%3E%3Cevil/%3E');
  });

  it('rejects sizes and durations VAST cannot carry', () => {
    expect(() => buildVastInline(input({ mediaFile: { url: 'u', width: 0, height: 360 } }))).toThrow(RangeError);
    expect(() => buildVastInline(input({ durationSeconds: -1 }))).toThrow(RangeError);
    expect(() => buildVastInline(input({ durationSeconds: Number.NaN }))).toThrow(RangeError);
  });
});

describe('buildVastEmpty', () => {
  it('is a valid empty VAST 4.2 document', async () => {
    const x = buildVastEmpty();
    await expectValid(x);
    expect(x).toBe('<?xml version="1.0" encoding="UTF-8"?><VAST version="4.2" xmlns="http://www.iab.com/VAST"/>');
  });

  it('carries the Error URL, cache busters expanded, [ERRORCODE] left', async () => {
    const x = buildVastEmpty({ errorUrl: 'https://ads.example/e?code=[ERRORCODE]&cb=[CACHEBUSTING]', cacheBuster: '87654321' });
    await expectValid(x);
    expect(parse(x).VAST.Error).toEqual(['https://ads.example/e?code=[ERRORCODE]&cb=87654321']);
  });
});

describe('the schema check itself', () => {
  const valid = buildVastInline(input());

  it('rejects a URL that is not a URI', async () => {
    expect(await vastSchemaErrors(valid.replace('https://v.example/mid', 'https://v.example/[mid'))).not.toEqual([]);
  });

  it('rejects an InLine linear without MediaFiles', async () => {
    const broken = valid.replace(/<MediaFiles>.*<\/MediaFiles>/, '');
    expect(broken).not.toBe(valid);
    const errors = await vastSchemaErrors(broken);
    expect(errors.join('\n')).toMatch(/MediaFiles/);
  });

  it('rejects an InLine without AdServingId', async () => {
    const errors = await vastSchemaErrors(valid.replace(/<AdServingId>.*<\/AdServingId>/, ''));
    expect(errors.join('\n')).toMatch(/AdServingId/);
  });

  it('rejects an unknown tracking event and misordered clicks', async () => {
    expect(await vastSchemaErrors(valid.replace('event="mute"', 'event="explode"'))).not.toEqual([]);
    const misordered = valid.replace(/(<ClickTracking id="click-0">.*?<\/ClickTracking>)(.*?)(<ClickThrough.*?<\/ClickThrough>)/, '$3$1$2');
    expect(misordered).not.toBe(valid);
    expect(await vastSchemaErrors(misordered)).not.toEqual([]);
  });

  it('rejects a document outside the VAST namespace', async () => {
    expect(await vastSchemaErrors(valid.replace(' xmlns="http://www.iab.com/VAST"', ''))).not.toEqual([]);
  });
});

describe('vastTime', () => {
  it.each([
    [0, '00:00:00.000'],
    [15, '00:00:15.000'],
    [61.25, '00:01:01.250'],
    [3725.0004, '01:02:05.000'],
  ])('%d s is %s', (s, t) => {
    expect(vastTime(s)).toBe(t);
  });
});

describe('xml helpers', () => {
  it('escapes the five XML specials', () => {
    expect(xmlEscape(`<a href="x">&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
  });

  it('splits ]]> across CDATA sections', () => {
    expect(cdata('a]]>b')).toBe('<![CDATA[a]]]]><![CDATA[>b]]>');
  });
});
