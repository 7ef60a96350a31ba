import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type NatsConnection } from 'nats';
import {
  DELIVERY_STREAM,
  SERVING_SNAPSHOT_BUCKET,
  SERVING_SNAPSHOT_VERSION,
  servingSnapshotKey,
  type DeliveryEvent,
  type ServingCampaign,
} from '@contracts/domain';
import { createLogger } from '@platform/logging';
import { deleteLargeValue, naming, openKeyValue, putLargeValue } from '@platform/nats';
import { deletePrefixedStreams, uniquePrefix } from '@platform/testing';
import { adServerConfigSchema } from './ad-server.config';
import { startAdServer, type RunningAdServer } from './ad-server.module';
import { vastSchemaErrors } from './vast/vast-schema';

jest.setTimeout(60_000);

const PUBLIC = 'https://ads.example';

/** A campaign as content-creative compiles it: a display placement with two products, a video placement, a weather graph. */
function campaign(overrides: Partial<ServingCampaign> = {}, clickTracker = 'http://127.0.0.1:1/none'): ServingCampaign {
  return {
    version: SERVING_SNAPSHOT_VERSION,
    compiledAt: new Date().toISOString(),
    accountId: 7,
    retailCampaignId: 101,
    campaignName: 'Spring sale',
    status: 'ACTIVE',
    defaultUrl: null,
    placements: {
      '11': {
        placementId: 11,
        mediaPlanId: 21,
        name: '300x250 - Site',
        width: 300,
        height: 250,
        adServerKind: 'display',
        items: [
          {
            contentValue: 'SKU-1',
            name: 'Oat milk',
            imageUrl: 'https://img.example/1.png',
            price: '$2.49',
            landingUrl: 'https://shop.example/oat',
            callToAction: 'Buy',
            exports: {
              png: {
                path: 'exports/retail-campaign-101/q1/Spring_png_1x.zip',
                entry: { name: '12-oat.png', offset: 58, bytes: 4100 },
                width: 300,
                height: 250,
              },
            },
          },
          { contentValue: 'SKU-2', name: 'Rye bread', imageUrl: null, price: '$3.10', landingUrl: 'https://shop.example/rye', callToAction: null, exports: {} },
        ],
        trackers: { primaryClickTracker: [clickTracker], bannerImpressionTrackers: ['https://imp.example/p?cb=%%CACHEBUSTER%%'] },
      },
      '12': {
        placementId: 12,
        mediaPlanId: 21,
        name: 'Pre-roll',
        width: 640,
        height: 360,
        adServerKind: 'video',
        items: [
          {
            contentValue: 'SKU-1',
            name: 'Oat milk',
            imageUrl: null,
            price: null,
            landingUrl: 'https://shop.example/oat',
            callToAction: null,
            exports: { mp4: { path: 'exports/retail-campaign-101/q2/files/oat.mp4', width: 640, height: 360, durationSeconds: 4 } },
          },
        ],
        trackers: { videoStartViewedTracker: ['https://v.example/start?ord=[CACHEBUSTING]'], inStreamImpressionTrackers: ['https://v.example/imp'] },
      },
    },
    dynamicCampaigns: {
      '5': {
        campaignId: 5,
        defaultUrl: 'https://shop.example/',
        graph: {
          defaultCreativeMaster: 'SKU-1',
          rulePriority: null,
          segments: [
            {
              name: 'rainy',
              creativeMasters: ['SKU-2'],
              condition: { operator: 'and', expressions: [{ dataSignalServiceId: 3, dataSignalPropertyId: 'condition', operator: 'EQUALS', value: 'rain' }] },
            },
          ],
        },
      },
    },
    signals: { 'weather.condition': { dataSignalId: 3, propertyId: 'condition', valueType: 'string' } },
    ...overrides,
  };
}

describe('ad-server (real NATS: the serving_snapshot bucket in, DELIVERY events out)', () => {
  const prefix = uniquePrefix('ads');
  const names = naming(prefix);
  let nats: NatsConnection;
  let adServer: RunningAdServer;
  let base: string;
  let trackerHits: string[];
  let trackers: Server;
  let clickTracker: string;

  const put = async (value: ServingCampaign) =>
    putLargeValue(await openKeyValue(nats, names, SERVING_SNAPSHOT_BUCKET), servingSnapshotKey(value.retailCampaignId), JSON.stringify(value));
  const get = (path: string) => fetch(`${base}${path}`, { redirect: 'manual' });
  const tagQuery = (extra = '') => `plc=11&mp=21&cmp=101&tm=1&as=gam${extra}`;
  const explain = async (query: string) => (await (await get(`/serve/v1/explain?${query}`)).json()) as Record<string, unknown>;

  /** Every delivery event stored so far, oldest first. */
  async function deliveryEvents(): Promise<DeliveryEvent[]> {
    const jsm = await nats.jetstreamManager();
    const stream = names.stream(DELIVERY_STREAM.name);
    const { state } = await jsm.streams.info(stream);
    const events: DeliveryEvent[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      events.push(JSON.parse(Buffer.from((await jsm.streams.getMessage(stream, { seq })).data).toString()) as DeliveryEvent);
    }
    return events;
  }

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > deadline) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    trackerHits = [];
    trackers = createServer((req, res) => {
      trackerHits.push(req.url ?? '');
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => trackers.listen(0, '127.0.0.1', resolve));
    const trackerHost = `127.0.0.1:${(trackers.address() as AddressInfo).port}`;
    clickTracker = `http://${trackerHost}/click?ord=[CACHEBUSTING]`;
    nats = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    // Stored before the server starts: a starting replica serves what the bucket holds at once.
    await put(campaign({}, clickTracker));
    const config = adServerConfigSchema.parse({
      NATS_PREFIX: prefix,
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: PUBLIC,
      IAB_VENDOR_ID: '755',
      OUTBOUND_ALLOWLIST: trackerHost,
      LOG_LEVEL: 'silent',
    });
    adServer = await startAdServer(config, createLogger({ service: 'ad-server-spec', level: 'silent' }));
    base = `http://127.0.0.1:${adServer.port}`;
  });

  afterAll(async () => {
    await adServer?.drain();
    await adServer?.close();
    await nats?.close();
    trackers?.close();
    await deletePrefixedStreams(prefix);
  });

  it('answers /readyz once the snapshots are loaded, and serves the stored campaign from the first request', async () => {
    expect((await get('/readyz')).status).toBe(200);
    expect(adServer.snapshots.size).toBe(1);
    const script = await get(`/serve/v1/tags/rich-media.js?${tagQuery('&cb=1')}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('no-store');
  });

  it('draws the exported still linked to the click redirect, with the impression pixels and AdChoices', async () => {
    // cb values are tried until one rotates to SKU-1, whose png export the script must show.
    for (let cb = 0; cb < 50; cb++) {
      const body = await (await get(`/serve/v1/tags/rich-media.js?${tagQuery(`&cb=${cb}&adchoices=1`)}`)).text();
      if (!body.includes('oat.png')) continue;
      // The still is its entry of the export's zip, read by the gateway with one range request.
      expect(body).toContain(`${PUBLIC}/files/accounts/7/exports/retail-campaign-101/q1/Spring_png_1x.zip?entry=12-oat.png&amp;at=58&amp;bytes=4100`);
      expect(body).toContain(`${PUBLIC}/serve/v1/click?`);
      expect(body).toContain(`${PUBLIC}/serve/v1/event?`);
      expect(body).toContain('https://imp.example/p?cb=');
      expect(body).not.toContain('%%CACHEBUSTER%%');
      expect(body).toContain('AdChoices');
      expect(body).not.toContain('</script>');
      return;
    }
    throw new Error('no request rotated to SKU-1');
  });

  it('rotates a placement without a graph evenly over its items, the same item for the same cache-buster', async () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const answer = await explain(tagQuery(`&cb=r${i}`));
      counts.set(answer.creative as string, (counts.get(answer.creative as string) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(['SKU-1', 'SKU-2']);
    for (const count of counts.values()) expect(count).toBeGreaterThan(70);
    expect((await explain(tagQuery('&cb=same'))).creative).toBe((await explain(tagQuery('&cb=same'))).creative);
  });

  it("decides by the dynamic campaign's graph from the tag's data signals, and serves the default when no segment matches", async () => {
    expect(await explain(tagQuery('&dc=5&ds_Weather.condition=rain&cb=a'))).toMatchObject({ creative: 'SKU-2', segment: 'rainy', usedDefault: false });
    expect(await explain(tagQuery('&dc=5&ds_weather.condition=clear&cb=a'))).toMatchObject({ creative: 'SKU-1', segment: '(default)', usedDefault: true });
    // An ad server that did not expand its macro sent no value.
    expect(await explain(tagQuery('&dc=5&ds_weather.condition=%25%25PATTERN%3Aweather%25%25&cb=a'))).toMatchObject({ creative: 'SKU-1', usedDefault: true });
  });

  it('serves only the non-personalized default without consent, and says consent forced it', async () => {
    const noTcString = await explain(tagQuery('&dc=5&ds_weather.condition=rain&gdpr=1&cb=a'));
    expect(noTcString).toMatchObject({ creative: 'SKU-1', consentForcedDefault: true, consent: expect.objectContaining({ personalized: false }) });
    const optedOut = await explain(tagQuery('&dc=5&ds_weather.condition=rain&us_privacy=1YYN&cb=a'));
    expect(optedOut).toMatchObject({
      creative: 'SKU-1',
      consentForcedDefault: true,
      consent: expect.objectContaining({ personalized: false, reason: 'us-privacy-opt-out' }),
    });
    expect(await explain(tagQuery('&dc=5&ds_weather.condition=rain&us_privacy=1YNN&cb=a'))).toMatchObject({ creative: 'SKU-2', consentForcedDefault: false });
  });

  it('answers a VAST 4.2 InLine ad that validates against the IAB schema, and an empty VAST without a video', async () => {
    const vast = await get('/serve/v1/vast/in-stream.xml?plc=12&mp=21&cmp=101&cb=9');
    expect(vast.status).toBe(200);
    expect(vast.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const xml = await vast.text();
    expect(await vastSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain(`${PUBLIC}/files/accounts/7/exports/retail-campaign-101/q2/files/oat.mp4`);
    expect(xml).toContain('<Duration>00:00:04.000</Duration>');
    for (const event of ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete', 'mute', 'unmute', 'skip'])
      expect(xml).toContain(`<Tracking event="${event}">`);
    expect(xml).toMatch(/https:\/\/v\.example\/start\?ord=\d{8}/);
    const none = await (await get(`/serve/v1/vast/in-stream.xml?${tagQuery()}`)).text();
    expect(await vastSchemaErrors(none)).toEqual([]);
    expect(none).not.toContain('<Ad ');
  });

  it("plays the item's mp4 export in an in-banner video tag, reporting its quartiles, and keeps rich media to the still", async () => {
    const script = await (await get('/serve/v1/tags/video-in-banner.js?plc=12&mp=21&cmp=101&cb=v1')).text();
    expect(script).toContain(`video class=\\"rm-video\\" src=\\"${PUBLIC}/files/accounts/7/exports/retail-campaign-101/q2/files/oat.mp4\\"`);
    for (const event of ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete', 'mute', 'unmute']) expect(script).toContain(`&e=${event}`);
    expect(script).toMatch(/https:\/\/v\.example\/start\?ord=\d{8}/);
    const document = await (await get('/serve/v1/ads/video-in-banner.html?plc=12&mp=21&cmp=101&cb=v1')).text();
    expect(document).toContain('<video class="rm-video"');
    expect(document).toContain("addEventListener('timeupdate'");
    expect(await (await get('/serve/v1/tags/rich-media.js?plc=12&mp=21&cmp=101&cb=v1')).text()).not.toContain('<video');
  });

  it('answers a native tag with rf=1 as an OpenRTB Native 1.2 response', async () => {
    const answer = await get(`/serve/v1/ads/native.html?${tagQuery('&rf=1&cb=n1')}`);
    expect(answer.status).toBe(200);
    const native = (await answer.json()) as {
      ver: string;
      assets: unknown[];
      link: { url: string };
      eventtrackers: { event: number; method: number; url: string }[];
    };
    expect(native.ver).toBe('1.2');
    expect(native.link.url.startsWith(`${PUBLIC}/serve/v1/click?`)).toBe(true);
    expect(native.eventtrackers).toContainEqual(expect.objectContaining({ event: 1, method: 1, url: expect.stringContaining('/serve/v1/event?') }));
  });

  it('counts a click, fires the click tracker with its cache-buster expanded, and redirects to the landing page from the snapshot', async () => {
    const body = await (await get(`/serve/v1/ads/rich-media.html?${tagQuery('&cb=c1')}`)).text();
    const clickUrl = new URL(/href="([^"]*\/serve\/v1\/click\?[^"]*)"/.exec(body)?.[1].replace(/&amp;/g, '&') as string);
    expect(clickUrl.origin).toBe(PUBLIC);
    const creative = clickUrl.searchParams.get('cr');
    const before = (await deliveryEvents()).length;
    const click = await get(`${clickUrl.pathname}${clickUrl.search}`);
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe(creative === 'SKU-1' ? 'https://shop.example/oat' : 'https://shop.example/rye');
    const events = await deliveryEvents();
    expect(events.slice(before)).toEqual([
      expect.objectContaining({ type: 'click', accountId: 7, retailCampaignId: 101, mediaPlanId: 21, placementId: 11, creative, segment: '(default)' }),
    ]);
    // The plan is the placement's in the snapshot, whatever mp the query names.
    await get(`${clickUrl.pathname}${clickUrl.search.replace('mp=21', 'mp=999')}`);
    expect((await deliveryEvents()).at(-1)).toMatchObject({ type: 'click', mediaPlanId: 21 });
    const hit = await until(
      async () => trackerHits.find((url) => url.startsWith('/click')),
      (url) => url !== undefined,
    );
    expect(hit).toMatch(/^\/click\?ord=\d{8}$/);
    // Through the ad server's click macro when the tag carried it expanded: its URL, then the landing page encoded.
    const viaAdServer = await get(`${clickUrl.pathname}${clickUrl.search}&click=${encodeURIComponent('https://adserver.example/c?u=')}`);
    expect(viaAdServer.headers.get('location')).toBe(`https://adserver.example/c?u=${encodeURIComponent(click.headers.get('location') as string)}`);
    // A landing URL in the query is not followed: the redirect target comes from the snapshot alone.
    const tampered = await get(`${clickUrl.pathname}${clickUrl.search}&landing=https://evil.example`);
    expect(tampered.headers.get('location')).not.toContain('evil');
  });

  it('counts impression pixels and refuses an unknown event type with a problem naming e', async () => {
    const before = (await deliveryEvents()).length;
    const pixel = await get(`/serve/v1/event?${tagQuery('&e=impression&cr=SKU-2&sg=(default)&pz=1')}`);
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    expect((await deliveryEvents()).slice(before)).toEqual([expect.objectContaining({ type: 'impression', creative: 'SKU-2', personalized: true })]);
    const bad = await get(`/serve/v1/event?${tagQuery('&e=hover')}`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'INVALID_EVENT', detail: expect.stringContaining('e must be one of') });
  });

  it('sends a noscript image to the ad still and counts its impression', async () => {
    const before = (await deliveryEvents()).length;
    for (let cb = 0; cb < 50; cb++) {
      const answer = await get(`/serve/v1/img/rich-media.png?${tagQuery(`&noscript=1&cb=ns${cb}`)}`);
      if (answer.headers.get('location')?.includes('oat.png')) {
        expect(answer.status).toBe(302);
        expect(answer.headers.get('location')).toBe(
          `${PUBLIC}/files/accounts/7/exports/retail-campaign-101/q1/Spring_png_1x.zip?entry=12-oat.png&at=58&bytes=4100`,
        );
        const events = (await deliveryEvents()).slice(before);
        expect(events[events.length - 1]).toMatchObject({ type: 'impression', creative: 'SKU-1' });
        return;
      }
    }
    throw new Error('no noscript request rotated to SKU-1');
  });

  it('refuses a query that is not one of our tags with a problem naming plc, mp and cmp', async () => {
    const answer = await get('/serve/v1/tags/rich-media.js?plc=abc&mp=21');
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(await answer.json()).toMatchObject({ code: 'INVALID_TAG_QUERY', detail: expect.stringContaining('plc, mp and cmp') });
    expect((await get('/serve/v1/tags/banner.js?plc=1&mp=1&cmp=1')).status).toBe(404);
  });

  it('serves a campaign larger than one NATS message (5,000 products, stored in parts)', async () => {
    const big = campaign({}, clickTracker);
    const items = Array.from({ length: 5_000 }, (_, i) => ({
      contentValue: `BIG-${i}`,
      name: `Product ${i} ${'x'.repeat(200)}`,
      imageUrl: `https://img.example/${i}-${Math.random().toString(36)}.png`,
      price: `$${i}.99`,
      landingUrl: `https://shop.example/p/${i}/${Math.random().toString(36)}`,
      callToAction: 'Buy',
      exports: {},
    }));
    big.placements['11'] = { ...big.placements['11'], items };
    expect(JSON.stringify(big).length).toBeGreaterThan(1_024 * 1_024);
    await put(big);
    const served = await until(
      async () => explain(tagQuery('&cb=big')),
      (answer) => String(answer.creative).startsWith('BIG-'),
    );
    expect(served.creative).toMatch(/^BIG-\d+$/);
    await put(campaign({}, clickTracker));
    await until(
      async () => explain(tagQuery('&cb=big')),
      (answer) => String(answer.creative).startsWith('SKU-'),
    );
  });

  it('serves a change to the snapshot within seconds: a paused campaign answers no ad, a removed one is unknown', async () => {
    await put(campaign({ status: 'PAUSED' }, clickTracker));
    const paused = await until(
      async () => (await get(`/serve/v1/tags/rich-media.js?${tagQuery()}`)).text(),
      (body) => body.includes('CAMPAIGN_NOT_ACTIVE'),
    );
    expect(paused).toBe('/* no ad: CAMPAIGN_NOT_ACTIVE */');
    await deleteLargeValue(await openKeyValue(nats, names, SERVING_SNAPSHOT_BUCKET), servingSnapshotKey(101));
    const removed = await until(
      async () => (await get(`/serve/v1/tags/rich-media.js?${tagQuery()}`)).text(),
      (body) => body.includes('UNKNOWN_CAMPAIGN'),
    );
    expect(removed).toBe('/* no ad: UNKNOWN_CAMPAIGN */');
  });
});

describe('ad-server on an empty bucket (a new installation)', () => {
  const prefix = uniquePrefix('adsempty');

  afterAll(async () => {
    await deletePrefixedStreams(prefix);
  });

  it('starts ready with nothing to serve, and answers no ad', async () => {
    const config = adServerConfigSchema.parse({ NATS_PREFIX: prefix, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    const adServer = await startAdServer(config, createLogger({ service: 'ad-server-spec', level: 'silent' }));
    try {
      const base = `http://127.0.0.1:${adServer.port}`;
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${base}/serve/v1/tags/rich-media.js?plc=1&mp=1&cmp=1`)).text()).toBe('/* no ad: UNKNOWN_CAMPAIGN */');
    } finally {
      await adServer.drain();
      await adServer.close();
    }
  });
});
