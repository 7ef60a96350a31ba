import type { AuditChangeEvent } from '@contracts/domain';
import { servingAuditAccount } from './serving-snapshot.refresher';

const event = (change: Partial<AuditChangeEvent>) => Buffer.from(JSON.stringify({ action: 'create', orgId: 'org-1', ...change }));

describe('servingAuditAccount', () => {
  it('marks the account of a change a snapshot shows: content maps, campaigns, placements, asset rows, trackers', () => {
    for (const resourceType of ['content-map', 'retail-campaign', 'placement', 'asset-source', 'tracker', 'dynamic-campaign'] as const)
      expect(servingAuditAccount(event({ resourceType, accountId: 7 }))).toBe(7);
  });

  it('marks nothing for an export starting or a queued job (a completed export arrives as a finished job), nor for an org resource', () => {
    for (const resourceType of ['export', 'asset-library-upload', 'cloud-copy', 'webhook'] as const)
      expect(servingAuditAccount(event({ resourceType, accountId: 7 }))).toBeUndefined();
    expect(servingAuditAccount(event({ resourceType: 'media-channel' }))).toBeUndefined();
  });
});
