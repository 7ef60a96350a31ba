import {
  AD_SERVER_ID_MAX,
  DATA_SIGNAL_MAX,
  DATA_SIGNAL_PATTERN,
  MACRO_NAME_MAX,
  TAG_AD_SERVER_PARAMS_MAX_BYTES,
  TAG_VARIABLE_MAPS_PER_CAMPAIGN_MAX,
} from '@contracts/domain';
import { type FieldError, problem, validationFailed } from '@platform/errors';
import { rethrowDuplicateKey, withTransaction } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { Knex } from 'knex';
import { macrosOf } from '../macros/macro.registry';
import type { ChannelsPlansPeer } from '../peers/channels-plans.peer';
import { jsonObjectErrors, patternedText } from '../rules/field-rules';
import type { TagVariableMapInput, TagVariableMapRecord } from './tag-variable-map.model';
import { SIGNAL_KEY, type TagVariableMapRepository } from './tag-variable-map.repository';

const duplicate = (input: TagVariableMapInput) =>
  problem('TAG_VARIABLE_MAP_DUPLICATE', `The campaign already maps data signal ${input.dataSignal} on ad server ${input.adServerId}.`);

/** The rules of one entry; the ad server must be in the catalog and the macro in that server's syntax. */
export function entryErrors(input: TagVariableMapInput, catalog: ReadonlySet<string>): FieldError[] {
  const errors: FieldError[] = [
    ...patternedText(
      '/dataSignal',
      input.dataSignal,
      DATA_SIGNAL_MAX,
      new RegExp(DATA_SIGNAL_PATTERN),
      'must start with a letter and hold only letters, digits, _ . -',
    ),
    ...jsonObjectErrors('/adServerParams', input.adServerParamsJson, TAG_AD_SERVER_PARAMS_MAX_BYTES).errors,
  ];
  const macros = macrosOf(input.adServerId);
  if (input.adServerId.length === 0 || input.adServerId.length > AD_SERVER_ID_MAX || !catalog.has(input.adServerId) || !macros) {
    errors.push({
      pointer: '/adServerId',
      code: 'UNKNOWN_AD_SERVER',
      detail: `adServerId ${JSON.stringify(input.adServerId)} is not an ad server of the catalog.`,
    });
    errors.push(...patternedText('/macroName', input.macroName, MACRO_NAME_MAX, /[\s\S]*/, ''));
  } else {
    errors.push(
      ...patternedText(
        '/macroName',
        input.macroName,
        MACRO_NAME_MAX,
        macros.macroPattern,
        `must be a macro of ad server ${input.adServerId}, written like ${macros.macroExample}`,
      ),
    );
  }
  return errors;
}

/**
 * Which macro of an ad server carries each data signal of a campaign into its tags: at most one per
 * (campaign, ad server, data signal), enforced by a unique index.
 */
export class TagVariableMapService {
  constructor(
    private readonly knex: Knex,
    private readonly events: EventOutbox,
    private readonly maps: TagVariableMapRepository,
  ) {}

  async list(peer: ChannelsPlansPeer, accountId: number, campaignId: number): Promise<TagVariableMapRecord[]> {
    await peer.campaign(accountId, campaignId);
    return this.maps.list(accountId, campaignId);
  }

  /** The campaign's maps without asking channels-plans: for a caller that has checked the campaign. */
  listChecked(accountId: number, campaignId: number): Promise<TagVariableMapRecord[]> {
    return this.maps.list(accountId, campaignId);
  }

  async create(peer: ChannelsPlansPeer, accountId: number, campaignId: number, input: TagVariableMapInput): Promise<number> {
    const errors = entryErrors(input, await peer.adServerIds());
    if (errors.length > 0) throw validationFailed(errors);
    await peer.campaign(accountId, campaignId);
    if ((await this.maps.count(accountId, campaignId)) >= TAG_VARIABLE_MAPS_PER_CAMPAIGN_MAX) {
      throw problem('TAG_VARIABLE_MAPS_LIMIT', `A campaign holds at most ${TAG_VARIABLE_MAPS_PER_CAMPAIGN_MAX} tag variable maps.`);
    }
    return withTransaction(this.knex, async (trx) => {
      const idx = await this.maps.insert(trx, accountId, campaignId, normalised(input));
      const after = await this.maps.findForChange(trx, accountId, campaignId, idx);
      await recordChange(trx, this.events, { resourceType: 'tag-variable-map', resourceId: idx, action: 'create', accountId, after });
      return idx;
    }).catch((error) => rethrowDuplicateKey(error, () => duplicate(input), { key: SIGNAL_KEY }));
  }

  async update(peer: ChannelsPlansPeer, accountId: number, campaignId: number, idx: number, input: TagVariableMapInput): Promise<number> {
    const errors = entryErrors(input, await peer.adServerIds());
    if (errors.length > 0) throw validationFailed(errors);
    await peer.campaign(accountId, campaignId);
    const found = await withTransaction(this.knex, async (trx) => {
      const before = await this.maps.findForChange(trx, accountId, campaignId, idx);
      if (!before || !(await this.maps.update(trx, accountId, campaignId, idx, normalised(input)))) return false;
      const after = await this.maps.findForChange(trx, accountId, campaignId, idx);
      await recordChange(trx, this.events, { resourceType: 'tag-variable-map', resourceId: idx, action: 'update', accountId, before, after });
      return true;
    }).catch((error) => rethrowDuplicateKey(error, () => duplicate(input), { key: SIGNAL_KEY }));
    if (!found) throw problem('TAG_VARIABLE_MAP_NOT_FOUND', `Tag variable map ${idx} was not found in campaign ${campaignId}.`);
    return idx;
  }
}

const normalised = (input: TagVariableMapInput): TagVariableMapInput => ({
  ...input,
  adServerParamsJson: input.adServerParamsJson === '' ? '{}' : input.adServerParamsJson,
});
