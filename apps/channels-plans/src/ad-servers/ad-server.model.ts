import type { AdServerKind } from '@contracts/domain';

/** One ad server of the reference catalog. */
export interface AdServerEntry {
  adServerId: string;
  adServerName: string;
  kind: AdServerKind;
  /** Absolute once stored; the shipped catalog gives paths relative to PUBLIC_BASE_URL. */
  logoUrl: string;
}
