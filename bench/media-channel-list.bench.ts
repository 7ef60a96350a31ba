import { findPidByCommand, machineBusyFraction } from './harness/cpu-time';
import { Api, apiClient, expectJson } from './harness/http-api';
import { measure } from './harness/measure';
import { startPlatform } from './harness/platform';
import { printComparison } from './harness/print-comparison';
import { seedRetailerOrg } from './harness/seed';
import { loadSettingsFromEnv } from './harness/settings';
import { startStaticResponse } from './harness/static-response';
import { withTeardown } from './harness/teardown';

/**
 * GET of an org's media-channel list (25 of 30 items) through the gateway, beside a bare node:http
 * server answering the very same bytes. Measured twice: as deployed (pages answered from the
 * gateway's response cache after every check of the request), and on a second platform with the
 * cache off (RESPONSE_CACHE_TTL_MS=0), where every request goes gateway -> gRPC -> channels-plans -> MariaDB.
 */
const CHANNELS = 30;
const PAGE = 25;
const ORG_ID = 'bench-retailer';
/** Above this share of the cores busy before the runs, the figures are not comparable with the README's. */
const BUSY_WARNING = 0.15;

interface ChannelList {
  mediaChannels: unknown[];
  total: number;
}

/** Channels through the public API, each with a small additionalConfiguration like real ones carry. */
async function seedChannels(api: Api, orgId: string, apiKey: string): Promise<void> {
  for (let i = 1; i <= CHANNELS; i++) {
    const channel = {
      name: `Bench channel ${String(i).padStart(2, '0')}`,
      adServerId: 'gam',
      type: 'Off-site',
      activationConfiguration: { tagGeneration: true, creativeGeneration: false },
      additionalConfiguration: { networkCode: `2190${i}`, placement: 'homepage-top', sizes: ['300x250', '728x90'] },
    };
    expectJson(await api('POST', `/v2/org/${orgId}/retail-media-channels`, { token: apiKey, json: channel }), 201, `create channel ${i}`);
  }
}

async function main(): Promise<void> {
  const settings = loadSettingsFromEnv();
  console.log(`media-channel list: ${settings.connections} connections, ${settings.durationSec} s measured after ${settings.warmupSec} s warm-up`);

  await withTeardown(async (defer) => {
    const cached = await startPlatform('bench', defer);
    const uncached = await startPlatform('bench_nocache', defer, { env: { RESPONSE_CACHE_TTL_MS: '0' } });
    const targets = [];
    for (const platform of [cached, uncached]) {
      const api = apiClient(platform.gatewayUrl);
      const { orgId, apiKey } = await seedRetailerOrg(api, ORG_ID);
      await seedChannels(api, orgId, apiKey);
      const listPath = `/v2/org/${orgId}/retail-media-channels?limit=${PAGE}`;
      const captured = await api('GET', listPath, { token: apiKey });
      const list = expectJson<ChannelList>(captured, 200, 'list channels');
      if (list.mediaChannels.length !== PAGE || list.total !== CHANNELS) {
        throw new Error(`expected ${PAGE} of ${CHANNELS} channels, got ${list.mediaChannels.length} of ${list.total}`);
      }
      targets.push({ platform, apiKey, listPath, captured });
    }
    const [{ listPath, captured }] = targets;
    // The page links name each gateway's own port; otherwise the answers are the same bytes.
    if (!targets.every((target) => target.captured.body.length === captured.body.length)) throw new Error('the two platforms answered different lists');
    console.log(`response: ${captured.body.length} bytes of ${captured.contentType}`);

    const bare = await startStaticResponse({ body: captured.body, contentType: captured.contentType, path: listPath });
    defer('stop static response server', () => bare.stop());

    // Every run checks every body against the one captured from its server, so each pays the same client-side cost.
    const expectBody = captured.body.toString();
    const loadGenerator = { 'load generator': process.pid };
    const mariadbd = findPidByCommand('mariadbd');
    // The gateway confirms its caches with a NATS round trip, so the broker's share counts too.
    const natsServer = findPidByCommand('nats-server');
    const busy = await machineBusyFraction();
    console.log(`machine busy before measuring: ${(busy * 100).toFixed(0)}% of all cores`);
    if (busy > BUSY_WARNING) console.warn('note: something else is using the CPU; both figures will be low and noisy');

    const baseline = await measure({
      ...settings,
      name: 'bare node:http (baseline)',
      url: bare.url,
      expectBody,
      cpuOf: { ...(bare.pid ? { 'bare server': bare.pid } : {}), ...loadGenerator },
    });
    const names = ['gateway list (subject)', 'gateway list, response cache off'];
    for (const [index, target] of targets.entries()) {
      const { platform, apiKey } = target;
      const logBytesBefore = platform.logBytes();
      const subject = await measure({
        ...settings,
        name: names[index],
        url: `${platform.gatewayUrl}${listPath}`,
        headers: { authorization: `Bearer ${apiKey}` },
        expectBody: target.captured.body.toString(),
        cpuOf: { ...platform.pids, ...(mariadbd ? { mariadbd } : {}), ...(natsServer ? { 'nats-server': natsServer } : {}), ...loadGenerator },
      });
      const logBytesDuring = platform.logBytes() - logBytesBefore;
      printComparison(subject, baseline);
      // The access log is one line per request; more than that would make this a benchmark of logging.
      console.log(
        `the services logged ${logBytesDuring} bytes during the gateway runs (${(logBytesDuring / Math.max(1, subject.responses)).toFixed(0)} per measured response, warm-up included)`,
      );
    }
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
