import { ASSET_SOURCE_LABEL_MAX, effectivePage } from '@contracts/domain';
import { blankOrTooLong, problem, validationFailed } from '@platform/errors';
import type { Page } from '@platform/mysql';
import type { AssetSourceService } from '../sources/asset-source.service';
import type { LabelRepository } from './label.repository';

/** Labels of an account's asset sources: adding one twice is a no-op, removing a missing one is 404. */
export class LabelService {
  constructor(
    private readonly labels: LabelRepository,
    private readonly sources: AssetSourceService,
  ) {}

  async add(accountId: number, assetSourceId: number, label: string): Promise<boolean> {
    const text = this.check(label);
    await this.sources.get(accountId, assetSourceId);
    return this.labels.add(assetSourceId, text);
  }

  async list(accountId: number, assetSourceId: number, page?: { offset?: number; limit?: number }): Promise<Page<string>> {
    await this.sources.get(accountId, assetSourceId);
    return this.labels.list(assetSourceId, effectivePage(page));
  }

  async delete(accountId: number, assetSourceId: number, label: string): Promise<void> {
    const text = this.check(label);
    await this.sources.get(accountId, assetSourceId);
    if (!(await this.labels.delete(assetSourceId, text)))
      throw problem('LABEL_NOT_FOUND', `Asset source ${assetSourceId} has no label ${JSON.stringify(text)}.`);
  }

  /** Labels are stored trimmed, so " sale" and "sale" are one label. */
  private check(label: string): string {
    const errors = blankOrTooLong('/label', label, ASSET_SOURCE_LABEL_MAX);
    if (errors.length > 0) throw validationFailed(errors);
    return label.trim();
  }
}
