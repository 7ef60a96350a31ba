import { AppError, problem } from './app-error';
import { isDependencyUnavailable, toAppError } from './dependency-failure';

/** An error shaped as the drivers raise them (Node's sockets, mysql2, knex). */
const driverError = (fields: Record<string, unknown>, message = 'driver failure') => Object.assign(new Error(message), fields);

describe('dependency failures', () => {
  it.each([
    ['a refused connection', { code: 'ECONNREFUSED' }],
    ['a connection the server dropped', { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }],
    ['a server that is full', { code: 'ER_CON_COUNT_ERROR', errno: 1040 }],
    ['a server shutting down', { code: 'ER_SERVER_SHUTDOWN', errno: 1053 }],
    ["MariaDB's killed connection", { code: 'ER_CONNECTION_KILLED', errno: 1927 }],
    ['a closed connection mysql2 marks fatal', { fatal: true }],
    ["knex's pool acquire timeout", { name: 'KnexTimeoutError' }],
  ])('recognizes %s', (_what, fields) => {
    expect(isDependencyUnavailable(driverError(fields))).toBe(true);
  });

  it('follows the cause of a wrapping error', () => {
    expect(isDependencyUnavailable(new Error('query failed', { cause: driverError({ code: 'ECONNRESET' }) }))).toBe(true);
  });

  it.each([
    ['a duplicate key', { code: 'ER_DUP_ENTRY', errno: 1062 }],
    ['a deadlock', { code: 'ER_LOCK_DEADLOCK', errno: 1213 }],
    ['a syntax error', { code: 'ER_PARSE_ERROR', errno: 1064 }],
    ['a plain bug', {}],
  ])('does not take %s for an outage', (_what, fields) => {
    expect(isDependencyUnavailable(driverError(fields))).toBe(false);
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After for an outage, and keeps the driver error only as the cause', () => {
    const cause = driverError({ code: 'ECONNREFUSED' }, 'connect ECONNREFUSED 127.0.0.1:3306');
    const error = toAppError(cause, 'The database');
    expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' }, cause });
    expect(error.detail).toBe('The database is unavailable; retry shortly.');
    expect(error.detail).not.toContain('3306');
  });

  it('passes an AppError through and answers anything else as an opaque 500', () => {
    const refusal = problem('VALIDATION_FAILED', 'bad');
    expect(toAppError(refusal)).toBe(refusal);
    const bug = toAppError(new TypeError('x is undefined'));
    expect(bug).toBeInstanceOf(AppError);
    expect(bug).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred.' });
  });
});
