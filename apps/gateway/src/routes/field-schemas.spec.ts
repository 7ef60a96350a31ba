import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { Type, type TSchema } from '@sinclair/typebox';
import { defineFields } from '@contracts/domain';
import { fieldCreateProperties, fieldResponseSchema, fieldUpdateProperties } from './field-schemas';
import { unboundedFields } from './route-bounds';

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

const createBody = Type.Object(fieldCreateProperties(CAMPAIGN_WITH_BUDGET), { additionalProperties: false });
const updateBody = Type.Object(fieldUpdateProperties(CAMPAIGN_WITH_BUDGET), { additionalProperties: false, minProperties: 1 });
const answer = fieldResponseSchema(CAMPAIGN_WITH_BUDGET);

const ajv = addFormats(new Ajv({ strict: false }));
const valid = (schema: TSchema, value: unknown) => ajv.validate(schema, value);

describe('schemas built from a field table', () => {
  it('put a new field in the answer by its JSON name, nullable, and keep hidden fields out', () => {
    expect(Object.keys(answer.properties)).toEqual([
      'retailCampaignId',
      'campaignName',
      'templateIdx',
      'isAdGroupCampaign',
      'isSbt',
      'status',
      'createdTime',
      'updatedTime',
      'budget',
    ]);
    expect(answer.required).toContain('budget');
    expect(valid(answer.properties.budget, null)).toBe(true);
    expect(valid(answer.properties.createdTime, '2026-03-01T08:00:00.000Z')).toBe(true);
  });

  it('let create and update write exactly the fields the table marks writable, with its bounds', () => {
    expect(Object.keys(createBody.properties)).toEqual(['campaignName', 'templateIdx', 'isAdGroupCampaign', 'isSbt', 'budget']);
    expect(createBody.required).toEqual(['campaignName']);
    expect(Object.keys(updateBody.properties)).toEqual(['campaignName', 'status', 'budget']);
    expect(valid(createBody, { campaignName: 'Spring', budget: 0 })).toBe(true);
    expect(valid(createBody, { campaignName: 'Spring', budget: -1 })).toBe(false);
    expect(valid(createBody, { campaignName: '' })).toBe(false);
    expect(valid(createBody, { campaignName: 'x'.repeat(201) })).toBe(false);
    expect(valid(updateBody, { status: 'PAUSED' })).toBe(true);
    expect(valid(updateBody, { status: 'GONE' })).toBe(false);
    expect(valid(updateBody, { retailCampaignId: 3 })).toBe(false);
  });

  it('carry every bound the route table requires of a request field', () => {
    expect(unboundedFields(createBody)).toEqual([]);
    expect(unboundedFields(updateBody)).toEqual([]);
  });
});
