/**
 * Builds the gateway's OpenAPI document from its route table and validates it against the
 * OpenAPI 3.1 schema, so a route whose schema the document cannot express fails `npm test`; then
 * checks that it covers every route with permissions, schemas, problem answers and valid examples.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApi } from './openapi.builder';
import { coverageProblems } from './openapi-coverage';
import { knownPermissions, ROUTE_TABLE } from '../routes/route-table';

async function main(): Promise<void> {
  const document = buildOpenApi(ROUTE_TABLE, [...knownPermissions()].sort());
  const validator = new Validator();
  const result = await validator.validate(document);
  const operations = Object.values(document.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).length, 0);
  if (!result.valid) {
    console.error(`openapi: the generated document is not valid OpenAPI ${validator.version}:`);
    console.error(JSON.stringify(result.errors, null, 2));
    process.exit(1);
  }
  if (operations !== ROUTE_TABLE.length) {
    console.error(`openapi: ${operations} operations documented, ${ROUTE_TABLE.length} routed`);
    process.exit(1);
  }
  const gaps = coverageProblems(document, ROUTE_TABLE);
  if (gaps.length > 0) {
    console.error(`openapi: the document does not cover the gateway:\n${gaps.map((gap) => `  ${gap}`).join('\n')}`);
    process.exit(1);
  }
  console.log(`openapi: valid OpenAPI ${validator.version}, ${operations} operations`);
}

void main();
