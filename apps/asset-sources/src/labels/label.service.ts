import { ASSET_SOURCE_LABEL_MAX, effectivePage } from '@contracts/domain';
import { blankOrTooLong, problem, validationFailed } from '@platform/errors';
import { withTransaction, type Page } from '@platform/mysql';
import { recordChange, type EventOutbox } from '@platform/service';
import type { Knex } from 'knex';
import type { AssetSourceService } from '../sources/asset-source.service';
import type { LabelRepository } from './label.repository';

/** Labels of an account's asset sources: adding one twice is a no-op, removing a missing one is 404. */
export class LabelService {
  constructor(
    private readonly knex: Knex,
    private readonly labels: LabelRepository,
    private readonly sources: AssetSourceService,
    private readonly events: EventOutbox,
  ) {}

  async add(accountId: number, assetSourceId: number, label: string): Promise<boolean> {
    const text = this.check(label);
    await this.sources.get(accountId, assetSourceId);
    return withTransaction(this.knex, async (trx) => {
      const added = await this.labels.add(trx, assetSourceId, text);
      // Adding a label the source has is a no-op: nothing changed, nothing to record.
      if (added)
        await recordChange(trx, this.events, { ...this.resource(accountId, assetSourceId, text), action: 'create', after: { assetSourceId, label: text } });
      return added;
    });
  }

  async list(accountId: number, assetSourceId: number, page?: { offset?: number; limit?: number }): Promise<Page<string>> {
    await this.sources.get(accountId, assetSourceId);
    return this.labels.list(assetSourceId, effectivePage(page));
  }

  async delete(accountId: number, assetSourceId: number, label: string): Promise<void> {
    const text = this.check(label);
    await this.sources.get(accountId, assetSourceId);
    await withTransaction(this.knex, async (trx) => {
      if (!(await this.labels.delete(trx, assetSourceId, text)))
        throw problem('LABEL_NOT_FOUND', `Asset source ${assetSourceId} has no label ${JSON.stringify(text)}.`);
      await recordChange(trx, this.events, { ...this.resource(accountId, assetSourceId, text), action: 'delete', before: { assetSourceId, label: text } });
    });
  }

  private resource(accountId: number, assetSourceId: number, label: string) {
    return { resourceType: 'asset-source-label' as const, resourceId: `${assetSourceId}:${label}`, accountId };
  }

  /** Labels are stored trimmed, so " sale" and "sale" are one label. */
  private check(label: string): string {
    const errors = blankOrTooLong('/label', label, ASSET_SOURCE_LABEL_MAX);
    if (errors.length > 0) throw validationFailed(errors);
    return label.trim();
  }
}
