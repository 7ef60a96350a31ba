import { naming } from './nats.naming';

describe(naming.name, () => {
  it('prefixes stream names and every subject of a stream spec', () => {
    const sut = naming('T1_');
    expect(sut.streamSpec({ name: 'ORDERS', subjects: ['orders.>', 'refunds.*'], maxAgeMs: 1000 })).toEqual({
      name: 'T1_ORDERS',
      subjects: ['T1_orders.>', 'T1_refunds.*'],
      maxAgeMs: 1000,
    });
  });

  it('prefixes the stream and subjects of a consumer spec but not its durable name', () => {
    const sut = naming('T1_');
    const spec = sut.consumerSpec({
      stream: 'ORDERS',
      durable: 'billing',
      filterSubject: 'orders.created',
      deadLetterSubject: 'dlq.ORDERS.billing',
      maxDeliver: 3,
      ackWaitMs: 1000,
    });
    expect(spec).toMatchObject({
      stream: 'T1_ORDERS',
      durable: 'billing',
      filterSubject: 'T1_orders.created',
      deadLetterSubject: 'T1_dlq.ORDERS.billing',
    });
  });

  it('leaves names untouched with the empty production prefix', () => {
    expect(naming('').subject('jobs.progress.x')).toBe('jobs.progress.x');
    expect(naming().stream('JOBS')).toBe('JOBS');
  });

  it.each(['a.b', 'a b', 'a*', 'a>', 'ä'])('refuses the prefix %j, which would break subjects or stream names', (prefix) => {
    expect(() => naming(prefix)).toThrow(/Invalid NATS prefix/);
  });
});
