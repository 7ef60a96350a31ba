import { naming } from '@platform/nats';
import { withTransaction } from '@platform/mysql';
import { openTestSchema, type TestSchema } from '@platform/testing';
import { createEventOutbox } from './event-outbox';

describe(createEventOutbox.name, () => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await openTestSchema({ tag: 'evtout', base: 'event_outbox', migrations: [] });
  });
  afterAll(async () => {
    await schema?.close();
  });

  it('wakes the relay once the transaction of a relayAtCommit event has committed, and not for a rollback or another event', async () => {
    const wakes: string[] = [];
    let committed = false;
    const events = createEventOutbox(naming('EVT_'), {
      wakeRelay: () => void wakes.push(committed ? 'after commit' : 'before commit'),
    });
    const request = { subject: 'jobs.requested.kind', msgId: 'job:1', payload: { n: 1 }, relayAtCommit: true };

    await withTransaction(schema.db.knex, async (trx) => {
      await events.record(trx, { subject: 'audit.change', msgId: 'a:1', payload: {} });
      await events.record(trx, request);
      // Still inside: the row is not visible to the relay yet, so nothing is woken.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(wakes).toEqual([]);
      committed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(wakes).toEqual(['after commit']);

    await expect(
      withTransaction(schema.db.knex, async (trx) => {
        await events.record(trx, { ...request, msgId: 'job:2' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(wakes).toEqual(['after commit']);
    expect((await schema.db.knex('outbox').select('subject')).map((r: { subject: string }) => r.subject)).toEqual([
      'EVT_audit.change',
      'EVT_jobs.requested.kind',
    ]);
  });
});
