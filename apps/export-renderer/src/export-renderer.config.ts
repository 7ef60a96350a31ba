import { SERVICE_ENDPOINTS } from '@contracts/proto';
import { s3Fields, secretKey, z } from '@platform/config';
import { peerAddressFields, workerFields } from '@platform/service';

export const exportRendererConfigSchema = z.object({
  ...workerFields,
  ...s3Fields,
  // content-creative answers what an export renders and records how it went; templates holds the layouts.
  ...peerAddressFields([SERVICE_ENDPOINTS.contentCreative, SERVICE_ENDPOINTS.templates]),
  /** Signs the principal the renderer calls those services with (scoped to the export's account, no permission). */
  INTERNAL_AUTH_KEY: secretKey.optional(),
  /** host:port entries a product image URL may name although they are loopback or private (tests, on-premise). */
  OUTBOUND_ALLOWLIST: z.string().default(''),
  /** Where mp4 frames are written for ffmpeg; the OS temp dir by default. */
  EXPORT_RENDERER_TMP_DIR: z.string().optional(),
  /** Creatives rendered at once within one export. */
  EXPORT_RENDER_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
});

export type ExportRendererConfig = z.infer<typeof exportRendererConfigSchema>;
