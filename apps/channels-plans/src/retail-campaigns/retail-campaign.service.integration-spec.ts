import { CACHED_VIEWS, MAX_PAGE_LIMIT, RETAIL_CAMPAIGN_STATUSES, RETAIL_CAMPAIGN_TRANSITIONS, type RetailCampaignStatus } from '@contracts/domain';
import { openChannelsPlansTestBed, rejectionOf, type ChannelsPlansTestBed } from '../channels-plans.test-support';
import type { TemplatesPeer } from '../peers/templates.peer';

jest.setTimeout(60_000);

describe('RetailCampaignService (real MariaDB)', () => {
  let bed: ChannelsPlansTestBed;
  let nextAccount = 100;
  /** Each test works in accounts of its own, so counts and pages are its own. */
  const freshAccount = () => nextAccount++;
  /**
   * The templates service's answer, as channels-plans sees it: the real exchange is covered end to
   * end over HTTP (gateway -> channels-plans -> templates); here only the rule that uses it.
   */
  const templatesShowing = (...visible: number[]) => {
    const asked: [number, number][] = [];
    const templates: TemplatesPeer = {
      isVisible: async (accountId, templateIdx) => {
        asked.push([accountId, templateIdx]);
        return visible.includes(templateIdx);
      },
    };
    return { templates, asked };
  };
  const campaign = (name = 'Spring') => ({ campaignName: name, isAdGroupCampaign: false, isSbt: false });
  const storedStatus = async (id: number) => (await bed.db.knex('retail_campaigns').where({ retail_campaign_id: id }).first('status')).status as string;
  const putInStatus = (id: number, status: RetailCampaignStatus) => bed.db.knex('retail_campaigns').where({ retail_campaign_id: id }).update({ status });

  beforeAll(async () => {
    bed = await openChannelsPlansTestBed('rc');
  });

  afterAll(async () => {
    await bed?.close();
  });

  describe('create and read', () => {
    it('stores a new campaign in DRAFT with its name trimmed', async () => {
      const account = freshAccount();
      const { templates, asked } = templatesShowing(3);
      const id = await bed.retailCampaigns.create(account, { campaignName: '  Holiday  ', templateIdx: 3, isAdGroupCampaign: true, isSbt: false }, templates);
      expect(asked).toEqual([[account, 3]]);
      expect(await bed.retailCampaigns.get(account, id)).toEqual({
        retailCampaignId: id,
        accountId: account,
        campaignName: 'Holiday',
        templateIdx: 3,
        isAdGroupCampaign: true,
        isSbt: false,
        status: 'DRAFT',
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
      });
    });

    it('refuses a template that does not exist or is not available to the account, naming /templateIdx, and stores nothing', async () => {
      const account = freshAccount();
      const { templates, asked } = templatesShowing(3);
      const refused = await rejectionOf(bed.retailCampaigns.create(account, { ...campaign(), templateIdx: 4 }, templates));
      expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(refused.errors).toEqual([
        { pointer: '/templateIdx', code: 'TEMPLATE_NOT_FOUND', detail: `Template 4 does not exist or is not available to account ${account}.` },
      ]);
      expect(asked).toEqual([[account, 4]]);
      expect((await bed.retailCampaigns.list(account)).total).toBe(0);
      // Without a template nothing is asked.
      await bed.retailCampaigns.create(account, campaign(), templates);
      expect(asked).toHaveLength(1);
    });

    it('refuses a blank or too long name and a template index below 1 before asking about the template, storing nothing', async () => {
      const account = freshAccount();
      const { templates, asked } = templatesShowing(0);
      const blank = await rejectionOf(bed.retailCampaigns.create(account, { ...campaign('   '), templateIdx: 0 }, templates));
      expect(asked).toEqual([]);
      expect(blank).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(blank.errors).toEqual([
        expect.objectContaining({ pointer: '/campaignName', code: 'REQUIRED' }),
        expect.objectContaining({ pointer: '/templateIdx', code: 'OUT_OF_RANGE' }),
      ]);
      const long = await rejectionOf(bed.retailCampaigns.create(account, campaign('x'.repeat(201))));
      expect(long.errors).toEqual([expect.objectContaining({ pointer: '/campaignName', code: 'TOO_LONG' })]);
      expect((await bed.retailCampaigns.list(account)).total).toBe(0);
    });

    it("answers another account's campaign and a missing one as not found", async () => {
      const owner = freshAccount();
      const id = await bed.retailCampaigns.create(owner, campaign());
      expect(await rejectionOf(bed.retailCampaigns.get(freshAccount(), id))).toMatchObject({ status: 404, code: 'RETAIL_CAMPAIGN_NOT_FOUND' });
      expect(await rejectionOf(bed.retailCampaigns.get(owner, id + 1000))).toMatchObject({
        status: 404,
        detail: `Retail campaign ${id + 1000} was not found.`,
      });
    });
  });

  describe('facts (peer GetCampaignFacts)', () => {
    it('answers status, flags, template and the ad groups of an ad-group campaign in id order', async () => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(
        account,
        { campaignName: 'Facts', templateIdx: 4, isAdGroupCampaign: true, isSbt: true },
        templatesShowing(4).templates,
      );
      const second = await bed.adGroups.create(account, id, 'Second');
      const first = await bed.adGroups.create(account, id, 'First');
      await putInStatus(id, 'ACTIVE');
      expect(await bed.retailCampaigns.facts(account, id)).toMatchObject({
        retailCampaignId: id,
        campaignName: 'Facts',
        status: 'ACTIVE',
        isAdGroupCampaign: true,
        isSbt: true,
        templateIdx: 4,
        adGroups: [
          { adGroupId: second, adGroupName: 'Second' },
          { adGroupId: first, adGroupName: 'First' },
        ],
      });
    });

    it('answers no ad groups for a campaign that is not an ad-group campaign', async () => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(account, campaign('Plain'));
      expect(await bed.retailCampaigns.facts(account, id)).toMatchObject({
        status: 'DRAFT',
        isAdGroupCampaign: false,
        isSbt: false,
        templateIdx: null,
        adGroups: [],
      });
    });

    it("answers another account's campaign and a missing one with 404", async () => {
      const owner = freshAccount();
      const id = await bed.retailCampaigns.create(owner, campaign());
      expect(await rejectionOf(bed.retailCampaigns.facts(freshAccount(), id))).toMatchObject({ status: 404, code: 'RETAIL_CAMPAIGN_NOT_FOUND' });
      expect(await rejectionOf(bed.retailCampaigns.facts(owner, id + 1000))).toMatchObject({ status: 404, code: 'RETAIL_CAMPAIGN_NOT_FOUND' });
    });
  });

  describe('list', () => {
    it("pages an account's campaigns in id order with the total, and only that account's", async () => {
      const account = freshAccount();
      const ids: number[] = [];
      for (const name of ['a', 'b', 'c', 'd', 'e']) ids.push(await bed.retailCampaigns.create(account, campaign(name)));
      await bed.retailCampaigns.create(freshAccount(), campaign('elsewhere'));

      const first = await bed.retailCampaigns.list(account, { offset: 0, limit: 2 });
      expect(first.items.map((c) => c.retailCampaignId)).toEqual(ids.slice(0, 2));
      expect(first.total).toBe(5);
      expect((await bed.retailCampaigns.list(account, { offset: 4, limit: 2 })).items.map((c) => c.campaignName)).toEqual(['e']);
      expect(await bed.retailCampaigns.list(account, { offset: 10, limit: 2 })).toEqual({ items: [], total: 5 });
    });

    it('applies the default page to a zero limit and caps a large one', async () => {
      const account = freshAccount();
      await bed.db.knex('retail_campaigns').insert(Array.from({ length: MAX_PAGE_LIMIT + 5 }, (_, i) => ({ account_id: account, campaign_name: `bulk ${i}` })));
      expect((await bed.retailCampaigns.list(account, { offset: 0, limit: 0 })).items).toHaveLength(25);
      const capped = await bed.retailCampaigns.list(account, { offset: 0, limit: 10_000 });
      expect(capped.items).toHaveLength(MAX_PAGE_LIMIT);
      expect(capped.total).toBe(MAX_PAGE_LIMIT + 5);
    });
  });

  describe('update', () => {
    it('renames without touching the status, and refuses a bad name', async () => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(account, campaign('Old'));
      await bed.retailCampaigns.update(account, id, { campaignName: ' New ' });
      expect(await bed.retailCampaigns.get(account, id)).toMatchObject({ campaignName: 'New', status: 'DRAFT' });
      expect(await rejectionOf(bed.retailCampaigns.update(account, id, { campaignName: ' ' }))).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect((await bed.retailCampaigns.get(account, id)).campaignName).toBe('New');
    });

    it('refuses a status that is not one of the four, before looking the campaign up', async () => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(account, campaign());
      const refused = await rejectionOf(bed.retailCampaigns.update(account, id, { status: 'LIVE' }));
      expect(refused).toMatchObject({ status: 400, errors: [expect.objectContaining({ pointer: '/status', code: 'NOT_ALLOWED' })] });
      expect(await rejectionOf(bed.retailCampaigns.update(account, id + 1000, { status: 'draft' }))).toMatchObject({ status: 400 });
    });

    it("answers a missing or another account's campaign as not found", async () => {
      const id = await bed.retailCampaigns.create(freshAccount(), campaign());
      expect(await rejectionOf(bed.retailCampaigns.update(freshAccount(), id, { status: 'ACTIVE' }))).toMatchObject({
        status: 404,
        code: 'RETAIL_CAMPAIGN_NOT_FOUND',
      });
      expect(await storedStatus(id)).toBe('DRAFT');
    });
  });

  describe('status moves', () => {
    const moves = RETAIL_CAMPAIGN_STATUSES.flatMap((from) => RETAIL_CAMPAIGN_STATUSES.map((to) => [from, to] as const));
    const allowed: [RetailCampaignStatus, RetailCampaignStatus][] = [
      ['DRAFT', 'DRAFT'],
      ['DRAFT', 'ACTIVE'],
      ['ACTIVE', 'ACTIVE'],
      ['ACTIVE', 'PAUSED'],
      ['ACTIVE', 'ARCHIVED'],
      ['PAUSED', 'PAUSED'],
      ['PAUSED', 'ACTIVE'],
      ['PAUSED', 'ARCHIVED'],
      ['ARCHIVED', 'ARCHIVED'],
    ];
    const isAllowed = (from: string, to: string) => allowed.some(([f, t]) => f === from && t === to);

    it('follows the lifecycle the shared transition table declares', () => {
      for (const [from, to] of moves)
        expect([from, to, from === to || RETAIL_CAMPAIGN_TRANSITIONS[from].includes(to)]).toEqual([from, to, isAllowed(from, to)]);
    });

    it.each(moves.filter(([from, to]) => isAllowed(from, to)))('accepts %s -> %s', async (from, to) => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(account, campaign());
      await putInStatus(id, from);
      await bed.retailCampaigns.update(account, id, { status: to });
      expect(await storedStatus(id)).toBe(to);
    });

    it.each(moves.filter(([from, to]) => !isAllowed(from, to)))('refuses %s -> %s with 409 and leaves the campaign as it was', async (from, to) => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(account, campaign('Unchanged'));
      await putInStatus(id, from);
      const refused = await rejectionOf(bed.retailCampaigns.update(account, id, { campaignName: 'Renamed', status: to }));
      const allowedFrom = RETAIL_CAMPAIGN_TRANSITIONS[from];
      expect(refused).toMatchObject({
        status: 409,
        code: 'RETAIL_CAMPAIGN_STATUS_TRANSITION_NOT_ALLOWED',
        detail: `Retail campaign ${id} is ${from}; it cannot move to ${to}. Allowed from ${from}: ${allowedFrom.length > 0 ? allowedFrom.join(', ') : 'none'}.`,
        extensions: { currentStatus: from, requestedStatus: to },
      });
      expect(await bed.retailCampaigns.get(account, id)).toMatchObject({ status: from, campaignName: 'Unchanged' });
    });

    it('says so in words for a campaign that can no longer move', async () => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(account, campaign());
      await putInStatus(id, 'ARCHIVED');
      expect((await rejectionOf(bed.retailCampaigns.update(account, id, { status: 'ACTIVE' }))).detail).toBe(
        `Retail campaign ${id} is ARCHIVED; it cannot move to ACTIVE. Allowed from ARCHIVED: none.`,
      );
    });

    it("announces the account's export status view after a status move only (an archived campaign's exports read ARCHIVED)", async () => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(account, campaign());
      const notices = () => bed.viewChanges.filter((change) => change.tenant === String(account));
      await bed.retailCampaigns.update(account, id, { campaignName: 'Renamed' });
      await bed.retailCampaigns.update(account, id, { status: 'DRAFT' });
      expect(notices()).toEqual([]);
      await bed.retailCampaigns.update(account, id, { status: 'ACTIVE' });
      await bed.retailCampaigns.update(account, id, { status: 'ARCHIVED' });
      expect(notices()).toEqual([
        { view: CACHED_VIEWS.exportStatus, tenant: String(account) },
        { view: CACHED_VIEWS.exportStatus, tenant: String(account) },
      ]);
    });

    it('accepts the same status again without writing', async () => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(account, campaign());
      await putInStatus(id, 'PAUSED');
      const before = await bed.retailCampaigns.get(account, id);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await bed.retailCampaigns.update(account, id, { status: 'PAUSED' });
      expect((await bed.retailCampaigns.get(account, id)).updatedAt).toEqual(before.updatedAt);
    });

    it('decides a move on the status a concurrent change leaves, not on the one it read before', async () => {
      const account = freshAccount();
      const id = await bed.retailCampaigns.create(account, campaign());
      await putInStatus(id, 'ACTIVE');
      // Another writer holds the row and archives the campaign while the pause request is running.
      const other = await bed.db.knex.transaction();
      await other('retail_campaigns').where({ retail_campaign_id: id }).forUpdate().first();
      const pause = rejectionOf(bed.retailCampaigns.update(account, id, { status: 'PAUSED' }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other('retail_campaigns').where({ retail_campaign_id: id }).update({ status: 'ARCHIVED' });
      await other.commit();

      expect(await pause).toMatchObject({ status: 409, detail: expect.stringContaining('is ARCHIVED; it cannot move to PAUSED') });
      expect(await storedStatus(id)).toBe('ARCHIVED');
    });
  });
});
