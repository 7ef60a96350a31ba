import { s3Fields, z } from '@platform/config';
import { grpcServiceFields } from '@platform/service';

export const templatesConfigSchema = z.object({
  ...grpcServiceFields,
  /** The platform's bucket: template thumbnails live under templates/. */
  ...s3Fields,
});

export type TemplatesConfig = z.infer<typeof templatesConfigSchema>;
