import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { CHROMIUM, HEADLESS_CHROMIUM_ARGS, requireTool } from '@platform/testing';
import { admin, E2eSystem, httpClient, startE2eSystem } from './e2e-system';
import { ResponseConformance } from './response-conformance';

jest.setTimeout(60_000);

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
const WAIT = { timeout: 20_000 };

interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
}

/** Swagger UI's element ids: spaces and other non-word characters become underscores. */
const domId = (value: string) => value.replace(/[^\w-]/g, '_');

describe('the /docs reference page in headless Chromium', () => {
  let system: E2eSystem;
  let browser: Browser;
  let page: Page;
  let apiKey: string;
  let operations: { tag: string; operationId: string; method: string; path: string }[];
  let conformance: ResponseConformance;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // Debian's chromium (`npm test` installs it when missing), so no browser download is ever needed.
    const executablePath = requireTool(CHROMIUM);
    system = await startE2eSystem('docs');
    const http = httpClient(system.baseUrl);
    const a = admin(http);
    const orgId = await a.createOrg({ name: 'Docs Retail', isRetailer: true });
    apiKey = (await a.createKey({ orgId, permissions: ['AdServers_View'] })).apiKey;
    const document = (await http<OpenApiDocument>('GET', '/openapi.json')).body;
    conformance = new ResponseConformance(document as unknown as Record<string, unknown>);
    operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ tag: operation.tags[0], operationId: operation.operationId, method, path })),
    );
    browser = await chromium.launch({
      executablePath,
      args: [...HEADLESS_CHROMIUM_ARGS],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // CSP violations and script errors surface here; the page must render without any.
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('renders every tag and operation of the document', async () => {
    const response = await page.goto(`${system.baseUrl}/docs/`, { waitUntil: 'domcontentloaded' });
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.swagger-ui .information-container .title', WAIT);
    await page.waitForSelector('.swagger-ui .opblock', WAIT);
    expect(await page.textContent('.swagger-ui .information-container .title')).toContain('Retail Media and Dynamic Creative API');

    const tags = [...new Set(operations.map((operation) => operation.tag))];
    expect(tags).toEqual(expect.arrayContaining(['channels-plans', 'admin']));
    const renderedTags = await page.$$eval('.swagger-ui h3.opblock-tag', (nodes) => nodes.map((node) => node.getAttribute('data-tag')));
    expect(renderedTags.sort()).toEqual(tags.sort());

    for (const operation of operations) {
      const block = page.locator(`#operations-${domId(operation.tag)}-${domId(operation.operationId)}`);
      await expect(block.count()).resolves.toBe(1);
      await expect(block.locator('.opblock-summary-method').textContent()).resolves.toBe(operation.method.toUpperCase());
      await expect(block.locator('.opblock-summary-path').getAttribute('data-path')).resolves.toBe(operation.path);
    }
    expect(pageErrors).toEqual([]);
  });

  it('tries GET /v2/ad-servers out through the UI with a key given in the Authorize dialog', async () => {
    await page.click('.swagger-ui .auth-wrapper button.authorize', WAIT);
    const bearer = page.locator('.swagger-ui .modal-ux .auth-container').filter({ has: page.locator('h4', { hasText: 'bearerApiKey' }) });
    await bearer.locator('input').fill(apiKey, WAIT);
    await bearer.locator('button.authorize').click(WAIT);
    await bearer.locator('button[aria-label="Remove authorization"]').waitFor(WAIT);
    await page.click('.swagger-ui .modal-ux button.close-modal', WAIT);

    const operation = page.locator('#operations-channels-plans-listAdServers');
    await operation.locator('.opblock-summary-control').click(WAIT);
    await operation.locator('button.try-out__btn').click(WAIT);
    const sent = page.waitForResponse((response) => new URL(response.url()).pathname === '/v2/ad-servers', WAIT);
    await operation.locator('button.execute').click(WAIT);
    // The answer the browser got is held to the document like every other e2e response.
    const answer = await sent;
    conformance.check({
      method: 'GET',
      path: answer.url(),
      status: answer.status(),
      contentType: answer.headers()['content-type'] ?? null,
      text: await answer.text(),
    });
    const live = operation.locator('.live-responses-table .response');
    await live.first().waitFor(WAIT);
    await expect(live.first().locator('.response-col_status').textContent()).resolves.toMatch(/^\s*200/);
    await expect(live.first().locator('.response-col_description pre').first().textContent()).resolves.toContain('"onsite-rm"');
    // The request the UI sent, as it shows it: the key it was given went out as a bearer token.
    await expect(operation.locator('.curl-command').textContent()).resolves.toContain(`Authorization: Bearer ${apiKey}`);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'docs-page.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});
