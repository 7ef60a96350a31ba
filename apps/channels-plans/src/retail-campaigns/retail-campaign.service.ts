import type { Knex } from 'knex';
import {
  effectivePage,
  exportStatusChanged,
  fieldChanges,
  fieldCreateValues,
  RETAIL_CAMPAIGN_FIELDS,
  RETAIL_CAMPAIGN_TRANSITIONS,
  type RetailCampaignStatus,
} from '@contracts/domain';
import { fieldTableErrors, problem, validationFailed } from '@platform/errors';
import { withTransaction, type Page } from '@platform/mysql';
import { recordChange, type EventOutbox, type ViewChangeAnnouncer } from '@platform/service';
import type { AdGroupRepository } from '../ad-groups/ad-group.repository';
import type { CampaignFacts, CreateRetailCampaignInput, RetailCampaignRecord, UpdateRetailCampaignInput } from './retail-campaign.model';
import type { RetailCampaignRepository } from './retail-campaign.repository';
import type { TemplatesPeer } from '../peers/templates.peer';

export const retailCampaignNotFound = (id: number) => problem('RETAIL_CAMPAIGN_NOT_FOUND', `Retail campaign ${id} was not found.`);

/**
 * Refuses a status move the lifecycle does not allow (RETAIL_CAMPAIGN_TRANSITIONS). Setting the
 * current status again is not a move and is accepted. 409, because the request is well formed but
 * conflicts with the campaign's present state.
 */
export function assertStatusMove(retailCampaignId: number, from: RetailCampaignStatus, to: RetailCampaignStatus): void {
  if (from === to) return;
  const allowed = RETAIL_CAMPAIGN_TRANSITIONS[from] ?? [];
  if (allowed.includes(to)) return;
  throw problem(
    'RETAIL_CAMPAIGN_STATUS_TRANSITION_NOT_ALLOWED',
    `Retail campaign ${retailCampaignId} is ${from}; it cannot move to ${to}. Allowed from ${from}: ${allowed.length > 0 ? allowed.join(', ') : 'none'}.`,
    { extensions: { currentStatus: from, requestedStatus: to } },
  );
}

/**
 * Retail campaigns: the campaigns media plans and exports hang off. The gateway validates shapes;
 * every rule is re-checked here because other callers may reach the service.
 */
export class RetailCampaignService {
  constructor(
    private readonly deps: {
      knex: Knex;
      campaigns: RetailCampaignRepository;
      adGroups: AdGroupRepository;
      events: EventOutbox;
      /** A campaign's status shows in the export status read, a cached view of the gateways. */
      announceViewChange: ViewChangeAnnouncer;
    },
  ) {}

  /**
   * A campaign built from a template (templateIdx) is stored only once `templates` confirms the
   * template exists and the account may use it; otherwise the request is refused (400 naming
   * /templateIdx) and nothing is stored.
   */
  async create(accountId: number, input: CreateRetailCampaignInput, templates?: TemplatesPeer): Promise<number> {
    const errors = fieldTableErrors(RETAIL_CAMPAIGN_FIELDS, 'create', input);
    if (errors.length > 0) throw validationFailed(errors);
    if (input.templateIdx !== undefined) {
      if (!templates) throw new Error('A campaign from a template needs the templates service to check it');
      if (!(await templates.isVisible(accountId, input.templateIdx))) {
        throw validationFailed([
          {
            pointer: '/templateIdx',
            code: 'TEMPLATE_NOT_FOUND',
            detail: `Template ${input.templateIdx} does not exist or is not available to account ${accountId}.`,
          },
        ]);
      }
    }
    return withTransaction(this.deps.knex, async (trx) => {
      const id = await this.deps.campaigns.insert(trx, { accountId, ...fieldCreateValues(RETAIL_CAMPAIGN_FIELDS, input) });
      const after = await this.deps.campaigns.findForChange(trx, accountId, id);
      await recordChange(trx, this.deps.events, { resourceType: 'retail-campaign', resourceId: id, action: 'create', accountId, after });
      return id;
    });
  }

  async get(accountId: number, retailCampaignId: number): Promise<RetailCampaignRecord> {
    const campaign = await this.deps.campaigns.find(accountId, retailCampaignId);
    if (!campaign) throw retailCampaignNotFound(retailCampaignId);
    return campaign;
  }

  /**
   * What other services decide by (status, the ad-group and SBT flags) with the campaign's ad
   * groups; a campaign that is not an ad-group campaign has none.
   */
  async facts(accountId: number, retailCampaignId: number): Promise<CampaignFacts> {
    const campaign = await this.get(accountId, retailCampaignId);
    const adGroups = campaign.isAdGroupCampaign ? await this.deps.adGroups.list(accountId, retailCampaignId) : [];
    return { ...campaign, adGroups };
  }

  list(accountId: number, page?: { offset?: number; limit?: number }): Promise<Page<RetailCampaignRecord>> {
    return this.deps.campaigns.list(accountId, effectivePage(page));
  }

  /**
   * Changes the fields given (those RETAIL_CAMPAIGN_FIELDS lets an update write); a new status is a
   * move, checked against the lifecycle. The status is read with the row locked and written in the same
   * transaction, so two concurrent moves are decided one after the other, each from the status the
   * other left (ACTIVE -> ARCHIVED racing ACTIVE -> PAUSED cannot end PAUSED after ARCHIVED).
   */
  async update(accountId: number, retailCampaignId: number, input: UpdateRetailCampaignInput): Promise<void> {
    const errors = fieldTableErrors(RETAIL_CAMPAIGN_FIELDS, 'update', input);
    if (errors.length > 0) throw validationFailed(errors);

    const statusMoved = await withTransaction(this.deps.knex, async (trx) => {
      const current = await this.deps.campaigns.lockStatus(trx, accountId, retailCampaignId);
      if (current === undefined) throw retailCampaignNotFound(retailCampaignId);
      const changes = fieldChanges(RETAIL_CAMPAIGN_FIELDS, input);
      if (changes.status === current) delete changes.status;
      if (changes.status !== undefined) assertStatusMove(retailCampaignId, current, changes.status);
      if (Object.keys(changes).length === 0) return false;
      const before = await this.deps.campaigns.findForChange(trx, accountId, retailCampaignId);
      await this.deps.campaigns.update(trx, accountId, retailCampaignId, changes);
      const after = await this.deps.campaigns.findForChange(trx, accountId, retailCampaignId);
      await recordChange(trx, this.deps.events, { resourceType: 'retail-campaign', resourceId: retailCampaignId, action: 'update', accountId, before, after });
      return changes.status !== undefined;
    });
    // After the commit, before the answer (an ARCHIVED campaign's export status lines read ARCHIVED).
    if (statusMoved) await this.deps.announceViewChange(exportStatusChanged(accountId));
  }
}
