import { PlacementParams as PlacementParamsMessage, RetailCampaign } from '../gen/channelsplans/v1/channels_plans';
import { PLACEMENT_PARAM_FIELDS, RETAIL_CAMPAIGN_FIELDS } from './channels-plans';
import { defineFields, fieldChanges, fieldCreateValues, fieldNamesOfKind, pickFieldInput, toFieldJson, toFieldMessage } from './fields';

// A campaign-like table, self-contained so that adding a field to the real ones changes no test.
const CAMPAIGN_WITH_BUDGET = defineFields({
  retailCampaignId: { kind: 'int', column: 'retail_campaign_id' },
  accountId: { kind: 'int', column: 'account_id', hidden: true },
  campaignName: { kind: 'string', column: 'campaign_name', minLength: 1, maxLength: 200, trim: true, create: 'required', update: true },
  templateIdx: { kind: 'int', column: 'template_idx', minimum: 1, nullable: true, create: 'optional' },
  isAdGroupCampaign: { kind: 'bool', column: 'is_ad_group_campaign', create: 'optional', default: false },
  isSbt: { kind: 'bool', column: 'is_sbt', create: 'optional', default: false },
  status: { kind: 'enum', column: 'status', values: ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'], update: true },
  createdAt: { kind: 'timestamp', column: 'created_at', json: 'createdTime' },
  updatedAt: { kind: 'timestamp', column: 'updated_at', json: 'updatedTime' },
  // The field under test: declared here and nowhere else.
  budgetCents: { kind: 'int', column: 'budget_cents', minimum: 0, nullable: true, create: 'optional', update: true, json: 'budget' },
});

const RECORD = {
  retailCampaignId: 310,
  accountId: 1001,
  campaignName: 'Spring sale',
  templateIdx: null,
  isAdGroupCampaign: false,
  isSbt: true,
  status: 'ACTIVE' as const,
  createdAt: new Date('2026-03-01T08:00:00.000Z'),
  updatedAt: new Date('2026-03-02T09:30:00.000Z'),
  budgetCents: 125000,
};

describe('field tables', () => {
  it('map a record to its message: timestamps as ISO text, null as absent, a new field by its name', () => {
    expect(toFieldMessage(CAMPAIGN_WITH_BUDGET, RECORD)).toEqual({
      retailCampaignId: 310,
      accountId: 1001,
      campaignName: 'Spring sale',
      isAdGroupCampaign: false,
      isSbt: true,
      status: 'ACTIVE',
      createdAt: '2026-03-01T08:00:00.000Z',
      updatedAt: '2026-03-02T09:30:00.000Z',
      budgetCents: 125000,
    });
  });

  it('answer a message as JSON by JSON names, nullable ones absent as null, hidden ones left out', () => {
    const message = toFieldMessage(CAMPAIGN_WITH_BUDGET, { ...RECORD, budgetCents: null });
    expect(toFieldJson(CAMPAIGN_WITH_BUDGET, message)).toEqual({
      retailCampaignId: 310,
      campaignName: 'Spring sale',
      templateIdx: null,
      isAdGroupCampaign: false,
      isSbt: true,
      status: 'ACTIVE',
      createdTime: '2026-03-01T08:00:00.000Z',
      updatedTime: '2026-03-02T09:30:00.000Z',
      budget: null,
    });
  });

  it('pick what a create or an update may write, from a JSON body (JSON names) or a message (record names)', () => {
    const body = { campaignName: 'x', budget: 5, status: 'ACTIVE', retailCampaignId: 9 };
    expect(pickFieldInput(CAMPAIGN_WITH_BUDGET, 'create', body)).toEqual({ campaignName: 'x', budgetCents: 5, isAdGroupCampaign: false, isSbt: false });
    expect(pickFieldInput(CAMPAIGN_WITH_BUDGET, 'update', body)).toEqual({ campaignName: 'x', budgetCents: 5, status: 'ACTIVE' });
    expect(pickFieldInput(CAMPAIGN_WITH_BUDGET, 'update', { budgetCents: 7 })).toEqual({ budgetCents: 7 });
  });

  it('store a create with names trimmed and absent optional fields as their default or null', () => {
    expect(fieldCreateValues(CAMPAIGN_WITH_BUDGET, { campaignName: '  Spring  ', isAdGroupCampaign: true, isSbt: false })).toEqual({
      campaignName: 'Spring',
      templateIdx: null,
      isAdGroupCampaign: true,
      isSbt: false,
      budgetCents: null,
    });
    expect(fieldChanges(CAMPAIGN_WITH_BUDGET, { campaignName: ' New ', budgetCents: 0 })).toEqual({ campaignName: 'New', budgetCents: 0 });
  });

  // The generic mapping relies on ts-proto naming each message field as the table does.
  it('name every campaign field as the RetailCampaign message does', () => {
    expect(Object.keys(RetailCampaign.create()).sort()).toEqual(Object.keys(RETAIL_CAMPAIGN_FIELDS).sort());
  });

  it('name every placement param as the PlacementParams message does', () => {
    expect(Object.keys(PlacementParamsMessage.create()).sort()).toEqual(Object.keys(PLACEMENT_PARAM_FIELDS).sort());
  });

  it('list the fields of one kind in declaration order', () => {
    expect(fieldNamesOfKind(CAMPAIGN_WITH_BUDGET, 'bool')).toEqual(['isAdGroupCampaign', 'isSbt']);
    expect(fieldNamesOfKind(CAMPAIGN_WITH_BUDGET, 'int')).toEqual(['retailCampaignId', 'accountId', 'templateIdx', 'budgetCents']);
  });
});
