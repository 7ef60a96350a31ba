import { accountFileUrl, accountZipEntryUrl, type DeliveryEventType, type ServingExportFile } from '@contracts/domain';
import type { AdChoice } from '../decision/ad-decision';
import type { AdQuery } from '../http/ad-query';

/** The paths the ad server answers besides the tags' own (see the tag builder's SERVE_PATHS). */
export const EVENT_PATH = '/serve/v1/event';
export const CLICK_PATH = '/serve/v1/click';

/** Builds the absolute URLs one served ad points at: its event pixels, its click-through, its files. */
export class ServeUrls {
  constructor(private readonly publicBase: string) {}

  /** What every event and click of one served ad carries: enough to count it without another decision. */
  private context(query: AdQuery, choice: AdChoice, personalized: boolean): string {
    // Built by hand: this runs two or three times per served ad, where URLSearchParams costs several times more.
    return (
      `plc=${query.placementId}&mp=${query.mediaPlanId}&cmp=${query.retailCampaignId}` +
      `&cr=${encodeURIComponent(choice.item.contentValue)}&sg=${encodeURIComponent(choice.segment)}&pz=${personalized ? 1 : 0}` +
      `&rid=${encodeURIComponent(query.requestId)}`
    );
  }

  event(type: DeliveryEventType, query: AdQuery, choice: AdChoice, personalized: boolean): string {
    return `${this.publicBase}${EVENT_PATH}?${this.context(query, choice, personalized)}&e=${type}`;
  }

  click(query: AdQuery, choice: AdChoice, personalized: boolean): string {
    const click = query.clickPrefix ? `&click=${encodeURIComponent(query.clickPrefix)}` : '';
    return `${this.publicBase}${CLICK_PATH}?${this.context(query, choice, personalized)}${click}`;
  }

  /** An exported file of the account, as the gateway serves it: a file of its own, or an entry of the export's zip. */
  file(accountId: number, file: Pick<ServingExportFile, 'path' | 'entry'>): string {
    return file.entry ? accountZipEntryUrl(this.publicBase, accountId, file.path, file.entry) : accountFileUrl(this.publicBase, accountId, file.path);
  }
}
