import { AD_SERVER_KINDS } from '@contracts/domain';
import { openChannelsPlansTestBed, type ChannelsPlansTestBed } from '../channels-plans.test-support';
import { AD_SERVER_CATALOG } from './ad-server.catalog';

jest.setTimeout(60_000);

describe('AdServerService (real MariaDB)', () => {
  let bed: ChannelsPlansTestBed;

  beforeAll(async () => {
    // The test bed seeds the shipped catalog under http://cdn.test.
    bed = await openChannelsPlansTestBed('as');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('stores the shipped catalog with logos under the public base URL', async () => {
    const listed = await bed.adServers.list();
    expect(listed.map((e) => e.adServerId)).toEqual(AD_SERVER_CATALOG.map((e) => e.adServerId).sort());
    expect(await bed.adServers.find('gam')).toEqual({
      adServerId: 'gam',
      adServerName: 'Google Ad Manager',
      kind: 'display',
      logoUrl: 'http://cdn.test/static/ad-servers/gam.svg',
    });
    expect(new Set(listed.map((e) => e.kind))).toEqual(new Set(AD_SERVER_KINDS));
    expect(listed.filter((e) => e.kind === 'onsite-retail-media').map((e) => e.adServerId)).toEqual(['onsite-rm']);
  });

  it('brings stored entries up to date on the next seed and never deletes one', async () => {
    const renamed = AD_SERVER_CATALOG.map((e) => (e.adServerId === 'gam' ? { ...e, adServerName: 'GAM (renamed)' } : e)).filter(
      (e) => e.adServerId !== 'vistar',
    );
    await bed.adServers.seedCatalog('https://media.example/', renamed);
    expect(await bed.adServers.find('gam')).toMatchObject({ adServerName: 'GAM (renamed)', logoUrl: 'https://media.example/static/ad-servers/gam.svg' });
    // Channels may reference an entry a newer catalog dropped; it stays.
    expect(await bed.adServers.find('vistar')).toMatchObject({ logoUrl: 'http://cdn.test/static/ad-servers/vistar.svg' });
    expect(await bed.adServers.list()).toHaveLength(AD_SERVER_CATALOG.length);
  });

  it('finds nothing for an id outside the catalog', async () => {
    expect(await bed.adServers.find('unknown')).toBeUndefined();
  });
});
