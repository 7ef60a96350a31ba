import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startProcess } from '@platform/testing';

export interface StaticResponse {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts the bare baseline server answering with exactly `body` (bytes) and `contentType`. */
export async function startStaticResponse(options: { body: Buffer; contentType: string; path: string }): Promise<StaticResponse> {
  // A file rather than an env var: bodies of future benchmarks may outgrow the per-variable limit.
  const directory = await mkdtemp(join(tmpdir(), 'bench-static-'));
  const bodyFile = join(directory, 'body');
  await writeFile(bodyFile, options.body);
  const port = await freePort();
  try {
    const server = await startProcess({
      name: 'static-response',
      entry: 'bench/harness/static-response.server.ts',
      env: { PORT: String(port), STATIC_BODY_FILE: bodyFile, STATIC_CONTENT_TYPE: options.contentType },
      ready: /static response server listening/,
    });
    return {
      url: `http://127.0.0.1:${port}${options.path}`,
      pid: server.child.pid,
      stop: async () => {
        await server.stop();
        await rm(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}
