import { expectJson, type Api } from './http-api';

export interface QueueDetail {
  status: string;
  message: string;
  totalItems: number;
  totalProcessed: number;
}

export const QUEUE_POLL_MS = 100;
const QUEUE_DEADLINE_MS = 600_000;

/** Polls a queue every QUEUE_POLL_MS until it ends; a Failed queue, or one still running after `deadlineMs` (10 minutes), fails the benchmark. */
export async function settleQueue(api: Api, apiKey: string, queueId: string, deadlineMs = QUEUE_DEADLINE_MS): Promise<QueueDetail> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const detail = expectJson<QueueDetail>(await api('GET', `/v2/queues/${queueId}/status`, { token: apiKey }), 200, 'queue status');
    if (detail.status === 'Completed') return detail;
    if (detail.status === 'Failed') throw new Error(`queue ${queueId} failed: ${detail.message}`);
    if (Date.now() > deadline) throw new Error(`queue ${queueId} still ${detail.status} after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, QUEUE_POLL_MS));
  }
}
