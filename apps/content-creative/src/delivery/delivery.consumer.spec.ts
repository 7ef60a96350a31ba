import { createLogger } from '@platform/logging';
import { FoldBatcher } from './delivery.consumer';
import type { DeliveryEventRecord, FoldOutcome } from './delivery.model';

const logger = createLogger({ service: 'fold-batcher-spec', level: 'silent' });

const record = (id: string): DeliveryEventRecord => ({
  id,
  type: 'impression',
  day: '2026-03-01',
  accountId: 1,
  retailCampaignId: 2,
  mediaPlanId: 3,
  placementId: 4,
  creative: 'SKU-1',
  segment: '(default)',
});

describe('FoldBatcher', () => {
  it('folds up to maxBatch events at a time, one fold after the other, and settles each event after its fold', async () => {
    const folds: string[][] = [];
    let running = 0;
    const fold = async (events: DeliveryEventRecord[]): Promise<FoldOutcome> => {
      running += 1;
      expect(running).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      folds.push(events.map((e) => e.id));
      running -= 1;
      return { counted: events.length, duplicates: 0 };
    };
    const batcher = new FoldBatcher(fold, logger, 2, 10);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => batcher.add(record(id))));
    expect(folds).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('folds the events of a failed batch one at a time, so only the event that fails alone is refused', async () => {
    const folds: string[][] = [];
    const fold = async (events: DeliveryEventRecord[]): Promise<FoldOutcome> => {
      folds.push(events.map((e) => e.id));
      if (events.some((e) => e.id === 'bad')) throw new Error('refused');
      return { counted: events.length, duplicates: 0 };
    };
    const batcher = new FoldBatcher(fold, logger, 3, 10);
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((id) => batcher.add(record(id))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(folds).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });
});
