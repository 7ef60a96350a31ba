import { mediaChannelEvent } from './media-channel.events';

describe(mediaChannelEvent.name, () => {
  afterEach(() => jest.useRealTimers());

  it('gives two changes at the same instant distinct message ids (the outbox and JetStream dedupe by it)', () => {
    jest.useFakeTimers({ now: new Date('2026-11-22T10:00:00.000Z') });
    const first = mediaChannelEvent('updated', 'acme', 7);
    const second = mediaChannelEvent('updated', 'acme', 7);
    expect(first.msgId).not.toBe(second.msgId);
    expect(first.payload).toEqual({ type: 'media-channel.updated', orgId: 'acme', idx: 7, occurredAt: '2026-11-22T10:00:00.000Z' });
    expect(first.subject).toBe('channels-plans.media-channel.updated');
  });
});
