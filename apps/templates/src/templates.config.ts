import { loadConfig, z } from '@platform/config';
import { grpcServiceFields } from '@platform/service';

export const templatesConfigSchema = z.object({
  ...grpcServiceFields,
});

export type TemplatesConfig = z.infer<typeof templatesConfigSchema>;

export const loadTemplatesConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(templatesConfigSchema, env);
