import { openChannelsPlansTestBed, rejectionOf, type ChannelsPlansTestBed } from '../channels-plans.test-support';

jest.setTimeout(60_000);

describe('AdGroupService (real MariaDB)', () => {
  let bed: ChannelsPlansTestBed;
  let nextAccount = 100;
  const freshAccount = () => nextAccount++;
  const campaignIn = (account: number, isAdGroupCampaign = true) =>
    bed.retailCampaigns.create(account, { campaignName: 'Groups', isAdGroupCampaign, isSbt: false });

  beforeAll(async () => {
    bed = await openChannelsPlansTestBed('ag');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('creates ad groups with trimmed names and lists them in creation order', async () => {
    const account = freshAccount();
    const campaign = await campaignIn(account);
    const first = await bed.adGroups.create(account, campaign, '  Breakfast  ');
    const second = await bed.adGroups.create(account, campaign, 'Dinner');
    expect(second).toBeGreaterThan(first);
    expect(await bed.adGroups.list(account, campaign)).toEqual([
      { adGroupId: first, adGroupName: 'Breakfast' },
      { adGroupId: second, adGroupName: 'Dinner' },
    ]);
  });

  it('refuses a blank or too long name before storing anything', async () => {
    const account = freshAccount();
    const campaign = await campaignIn(account);
    expect(await rejectionOf(bed.adGroups.create(account, campaign, '   '))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ pointer: '/adGroupName', code: 'REQUIRED' })],
    });
    expect(await rejectionOf(bed.adGroups.create(account, campaign, 'x'.repeat(201)))).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ pointer: '/adGroupName', code: 'TOO_LONG' })],
    });
    await bed.adGroups.create(account, campaign, 'x'.repeat(200));
    expect((await bed.adGroups.list(account, campaign)).map((g) => g.adGroupName.length)).toEqual([200]);
  });

  it('refuses a second ad group of the same name in the campaign with 409, but allows it in another campaign', async () => {
    const account = freshAccount();
    const campaign = await campaignIn(account);
    const other = await campaignIn(account);
    await bed.adGroups.create(account, campaign, 'Lunch');
    expect(await rejectionOf(bed.adGroups.create(account, campaign, ' Lunch '))).toMatchObject({
      status: 409,
      code: 'AD_GROUP_NAME_TAKEN',
      detail: `Retail campaign ${campaign} already has an ad group named "Lunch".`,
    });
    await bed.adGroups.create(account, other, 'Lunch');
    expect(await bed.adGroups.list(account, campaign)).toHaveLength(1);
  });

  it('lets the unique index decide between concurrent creates of one name', async () => {
    const account = freshAccount();
    const campaign = await campaignIn(account);
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => bed.adGroups.create(account, campaign, 'Race')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) expect((o as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
    expect(await bed.adGroups.list(account, campaign)).toHaveLength(1);
  });

  it('refuses ad groups on a campaign that is not an ad-group campaign with 409, and lists none there', async () => {
    const account = freshAccount();
    const campaign = await campaignIn(account, false);
    expect(await rejectionOf(bed.adGroups.create(account, campaign, 'Nope'))).toMatchObject({
      status: 409,
      code: 'RETAIL_CAMPAIGN_NOT_AD_GROUP_CAMPAIGN',
      detail: expect.stringContaining('isAdGroupCampaign is false'),
    });
    expect(await bed.adGroups.list(account, campaign)).toEqual([]);
  });

  it("answers a missing or another account's campaign as not found, for create and list", async () => {
    const owner = freshAccount();
    const campaign = await campaignIn(owner);
    await bed.adGroups.create(owner, campaign, 'Mine');
    const stranger = freshAccount();
    for (const attempt of [
      bed.adGroups.create(stranger, campaign, 'Theirs'),
      bed.adGroups.list(stranger, campaign),
      bed.adGroups.create(owner, campaign + 1000, 'Missing'),
      bed.adGroups.list(owner, campaign + 1000),
    ]) {
      expect(await rejectionOf(attempt)).toMatchObject({ status: 404, code: 'RETAIL_CAMPAIGN_NOT_FOUND' });
    }
    expect(await bed.adGroups.list(owner, campaign)).toEqual([expect.objectContaining({ adGroupName: 'Mine' })]);
  });
});
