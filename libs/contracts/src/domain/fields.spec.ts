import { PlacementParams as PlacementParamsMessage, RetailCampaign } from '../gen/channelsplans/v1/channels_plans';
import { PLACEMENT_PARAM_FIELDS, RETAIL_CAMPAIGN_FIELDS } from './channels-plans';
import { defineFields, fieldChanges, fieldCreateValues, fieldNamesOfKind, pickFieldInput, toFieldJson, toFieldMessage } from './fields';

// A field added to the campaign's table the way a new one would be: nothing else is declared for it.
const CAMPAIGN_WITH_BUDGET = defineFields({
  ...RETAIL_CAMPAIGN_FIELDS,
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

  it('name every placement param as the PlacementParams message does, booleans and strings apart', () => {
    expect(Object.keys(PlacementParamsMessage.create()).sort()).toEqual(Object.keys(PLACEMENT_PARAM_FIELDS).sort());
    expect(fieldNamesOfKind(PLACEMENT_PARAM_FIELDS, 'bool')).toEqual(['adChoices', 'ccpa', 'embeddable', 'gdprMacro', 'mraid', 'noScriptTag', 'privacy']);
    expect(fieldNamesOfKind(PLACEMENT_PARAM_FIELDS, 'string')).toEqual(['expansionUnit', 'gdprConsentMacro', 'tagType']);
  });
});
