import { DeadLetterHeader, deadLetterHeaders, deadLetterMsgId, toHeaderValue } from './consumer.dead-letter';

describe(deadLetterHeaders.name, () => {
  const facts = {
    subject: 'T1_orders.created',
    msgId: 'order-1',
    error: 'boom',
    stream: 'T1_ORDERS',
    streamSequence: 42,
    consumer: 'billing',
    deliveryCount: 5,
    originalHeaders: { 'Nats-Msg-Id': 'order-1', 'Trace-Id': 'abc' },
  };

  it('records where the message came from and why it failed', () => {
    expect(deadLetterHeaders(facts)).toMatchObject({
      [DeadLetterHeader.OriginalSubject]: 'T1_orders.created',
      [DeadLetterHeader.OriginalMsgId]: 'order-1',
      [DeadLetterHeader.Error]: 'boom',
      [DeadLetterHeader.Stream]: 'T1_ORDERS',
      [DeadLetterHeader.StreamSequence]: '42',
      [DeadLetterHeader.Consumer]: 'billing',
      [DeadLetterHeader.DeliveryCount]: '5',
    });
  });

  it('carries application headers but not the NATS-reserved ones, whose meaning would change', () => {
    const headers = deadLetterHeaders(facts);
    expect(headers['Trace-Id']).toBe('abc');
    expect(headers['Nats-Msg-Id']).toBeUndefined();
  });

  it('gives each original message one stable dead-letter id', () => {
    expect(deadLetterMsgId('T1_ORDERS', 42)).toBe('dlq:T1_ORDERS:42');
  });
});

describe(toHeaderValue.name, () => {
  it('flattens multi-line errors and caps their length', () => {
    const value = toHeaderValue('Error: bad\r\n    at x (file.ts:1)\n' + 'y'.repeat(2000), 100);
    expect(value).not.toMatch(/[\r\n]/);
    expect(value).toHaveLength(100);
    expect(value.endsWith('...')).toBe(true);
  });
});
