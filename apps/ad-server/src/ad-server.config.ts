import { commonFields, natsFields, port, url, z } from '@platform/config';

export const adServerConfigSchema = z.object({
  ...commonFields,
  ...natsFields,
  /** Where the serving paths (/serve/v1/...) are answered, with /healthz, /readyz and /metrics. */
  PORT: port(8070),
  HOST: z.string().default('0.0.0.0'),
  /**
   * The platform's public base: tags, event pixels and click-throughs point under it, and exported files
   * are served at `<it>/files/accounts/<accountId>/<path>` by the gateway.
   */
  PUBLIC_BASE_URL: url('http://localhost:8080', ['http', 'https']),
  /**
   * The platform's vendor id in the IAB Global Vendor List. Under `gdpr=1` only a TC string with consent for
   * this vendor serves personalized; 0 (no id) means no request under GDPR is served personalized.
   */
  IAB_VENDOR_ID: z.coerce.number().int().min(0).max(65535).default(0),
  /** host:port entries a third-party click tracker may name although they are loopback or private (tests, on-premise). */
  OUTBOUND_ALLOWLIST: z.string().default(''),
  /** How long a server-side fired click tracker may take. */
  TRACKER_TIMEOUT_MS: z.coerce.number().int().min(100).max(10_000).default(2_000),
});

export type AdServerConfig = z.infer<typeof adServerConfigSchema>;
