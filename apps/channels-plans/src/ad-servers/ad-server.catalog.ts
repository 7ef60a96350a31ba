import type { AdServerEntry } from './ad-server.model';

/**
 * The reference catalog seeded on every start (upsert by id), so a deployment converges to the
 * catalog its code ships with. Only the on-site retail-media server exposes an API key (operation
 * 7). Logo paths are relative to PUBLIC_BASE_URL; the gateway serves them.
 */
export const AD_SERVER_CATALOG: readonly AdServerEntry[] = [
  { adServerId: 'onsite-rm', adServerName: 'On-site Retail Media Ad Server', kind: 'onsite-retail-media', logoUrl: '/static/ad-servers/onsite-rm.svg' },
  { adServerId: 'gam', adServerName: 'Google Ad Manager', kind: 'display', logoUrl: '/static/ad-servers/gam.svg' },
  { adServerId: 'cm360', adServerName: 'Campaign Manager 360', kind: 'display', logoUrl: '/static/ad-servers/cm360.svg' },
  { adServerId: 'xandr', adServerName: 'Microsoft Invest', kind: 'display', logoUrl: '/static/ad-servers/xandr.svg' },
  { adServerId: 'ttd', adServerName: 'The Trade Desk', kind: 'video', logoUrl: '/static/ad-servers/ttd.svg' },
  { adServerId: 'dv360', adServerName: 'Display & Video 360', kind: 'video', logoUrl: '/static/ad-servers/dv360.svg' },
  { adServerId: 'meta', adServerName: 'Meta Ads', kind: 'social', logoUrl: '/static/ad-servers/meta.svg' },
  { adServerId: 'pinterest', adServerName: 'Pinterest Ads', kind: 'social', logoUrl: '/static/ad-servers/pinterest.svg' },
  { adServerId: 'vistar', adServerName: 'Vistar Media', kind: 'dooh', logoUrl: '/static/ad-servers/vistar.svg' },
];
