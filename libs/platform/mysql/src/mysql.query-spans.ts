import type { Knex } from 'knex';
import { inSpan, markFailed, SpanKind, startSpan, tracingEnabled, type Span } from '@platform/telemetry';

const MAX_STATEMENT_LENGTH = 1_000;

/** `mysql SELECT`: the statement's verb; the text itself (placeholders, never values) is an attribute. */
function spanName(sql: string): string {
  return `mysql ${/^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY'}`;
}

const attributes = (schema: string, sql: string) => ({ 'db.system': 'mysql', 'db.name': schema, 'db.statement': sql.slice(0, MAX_STATEMENT_LENGTH) });

/**
 * One client span per statement knex runs, a child of whatever span is active where the query was
 * issued (a gRPC handler's). Only bound parameters' placeholders are recorded, so no value (and no
 * secret) reaches a trace. Nothing is attached when tracing is off.
 */
export function traceKnexQueries(knex: Knex, schema: string): void {
  if (!tracingEnabled()) return;
  const open = new Map<string, Span>();
  knex.on('query', (query: { __knexQueryUid?: string; sql?: string }) => {
    if (!query.__knexQueryUid || !query.sql) return;
    const started = startSpan(spanName(query.sql), { kind: SpanKind.CLIENT, attributes: attributes(schema, query.sql) });
    if (started) open.set(query.__knexQueryUid, started.span);
  });
  const end = (query: { __knexQueryUid?: string }, error?: unknown) => {
    const span = query.__knexQueryUid ? open.get(query.__knexQueryUid) : undefined;
    if (!span) return;
    open.delete(query.__knexQueryUid as string);
    if (error) markFailed(span, error);
    span.end();
  };
  knex.on('query-response', (_response: unknown, query: { __knexQueryUid?: string }) => end(query));
  knex.on('query-error', (error: unknown, query: { __knexQueryUid?: string }) => end(query, error));
}

/** A prepared statement run inside its own span (see traceKnexQueries); just runs it with tracing off. */
export function tracedStatement<T>(schema: string, sql: string, run: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return run();
  return inSpan(spanName(sql), { kind: SpanKind.CLIENT, attributes: attributes(schema, sql) }, run);
}
