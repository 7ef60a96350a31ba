export interface ApiResponse {
  status: number;
  contentType: string;
  /** The exact bytes on the wire (no compression is negotiated by the gateway). */
  body: Buffer;
}

export interface ApiRequest {
  token: string;
  json?: unknown;
}

export type Api = (method: 'GET' | 'POST' | 'PATCH', path: string, request: ApiRequest) => Promise<ApiResponse>;

/** Real HTTP to the gateway; benchmarks seed through the public API, never behind its back. */
export function apiClient(baseUrl: string): Api {
  return async (method, path, { token, json }) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: Buffer.from(await response.arrayBuffer()) };
  };
}

/** Parses the body of a response that must have `status`, with the body in the error otherwise. */
export function expectJson<T>(response: ApiResponse, status: number, what: string): T {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status}: ${response.body.toString().slice(0, 500)}`);
  return JSON.parse(response.body.toString()) as T;
}
