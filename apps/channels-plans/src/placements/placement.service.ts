import type { Knex } from 'knex';
import { MARK_TAGS_PRESENT_MAX } from '@contracts/domain';
import { notFound, validationFailed, type FieldError } from '@platform/errors';
import { withTransaction } from '@platform/mysql';
import { mediaPlanNotFound } from '../media-plans/media-plan.service';
import type { PlanPlacements, PlanRef } from './placement.model';
import type { PlacementRepository } from './placement.repository';

export const placementNotFound = (placementId: number) => notFound('PLACEMENT_NOT_FOUND', `Placement ${placementId} was not found in the media plan.`);

/**
 * Placements of a media plan: what peers read to build tags and exports, and the tag-presence flag
 * the tagging service sets. Every plan is looked up within the caller's account, so another
 * account's plan reads as missing.
 */
export class PlacementService {
  constructor(private readonly deps: { knex: Knex; placements: PlacementRepository }) {}

  /** The plan (with its campaign) and every placement, in placement id order. */
  async listForPlan(accountId: number, mediaPlanId: number): Promise<PlanPlacements> {
    const plan = await this.plan(accountId, mediaPlanId);
    return { ...plan, placements: await this.deps.placements.listForPlan(plan.mediaPlanId) };
  }

  /**
   * Sets isTagPresent on the named placements of the plan. All or nothing: one id that is not a
   * placement of the plan refuses the whole call (404 naming every such id) and changes nothing.
   * Idempotent: a placement already marked stays marked. Answers the number of distinct placements
   * named, every one of which is marked afterwards.
   */
  async markTagsPresent(accountId: number, mediaPlanId: number, placementIds: readonly number[]): Promise<number> {
    const errors = placementIdErrors(placementIds);
    if (errors.length > 0) throw validationFailed(errors);
    const plan = await this.plan(accountId, mediaPlanId);
    const ids = [...new Set(placementIds)];
    if (ids.length === 0) return 0;
    return withTransaction(this.deps.knex, async (trx) => {
      const found = new Set(await this.deps.placements.lockInPlan(trx, plan.mediaPlanId, ids));
      const unknown = ids.filter((id) => !found.has(id));
      if (unknown.length > 0) {
        throw notFound(
          'PLACEMENT_NOT_FOUND',
          `Placement${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in media plan ${mediaPlanId}; nothing was marked.`,
        );
      }
      await this.deps.placements.markTagsPresent(trx, plan.mediaPlanId, ids);
      return ids.length;
    });
  }

  private async plan(accountId: number, mediaPlanId: number): Promise<PlanRef> {
    const plan = await this.deps.placements.findPlan(accountId, mediaPlanId);
    if (!plan) throw mediaPlanNotFound(mediaPlanId);
    return plan;
  }
}

function placementIdErrors(placementIds: readonly number[]): FieldError[] {
  if (placementIds.length > MARK_TAGS_PRESENT_MAX) {
    return [{ pointer: '/placementIds', code: 'TOO_MANY', detail: `placementIds may hold at most ${MARK_TAGS_PRESENT_MAX} ids.` }];
  }
  return placementIds.flatMap((id, i) =>
    Number.isSafeInteger(id) && id >= 1 ? [] : [{ pointer: `/placementIds/${i}`, code: 'OUT_OF_RANGE', detail: 'placement ids must be positive integers.' }],
  );
}
