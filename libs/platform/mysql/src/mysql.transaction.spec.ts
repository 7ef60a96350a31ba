import { isRetryableTransactionError } from './mysql.transaction';

describe(isRetryableTransactionError.name, () => {
  // Shaped like the errors mysql2 rejects with: an Error carrying the server's errno and code.
  function serverError(errno: number, code: string): Error {
    return Object.assign(new Error(code), { errno, code });
  }

  it('retries deadlocks and lock wait timeouts', () => {
    expect(isRetryableTransactionError(serverError(1213, 'ER_LOCK_DEADLOCK'))).toBe(true);
    expect(isRetryableTransactionError(serverError(1205, 'ER_LOCK_WAIT_TIMEOUT'))).toBe(true);
  });

  it('does not retry errors that would fail again', () => {
    expect(isRetryableTransactionError(serverError(1062, 'ER_DUP_ENTRY'))).toBe(false);
    expect(isRetryableTransactionError(serverError(1146, 'ER_NO_SUCH_TABLE'))).toBe(false);
    expect(isRetryableTransactionError(new Error('boom'))).toBe(false);
    expect(isRetryableTransactionError('ER_LOCK_DEADLOCK')).toBe(false);
    expect(isRetryableTransactionError(null)).toBe(false);
  });

  it('never re-runs a transaction whose connection died: its COMMIT may have been applied', () => {
    expect(isRetryableTransactionError(Object.assign(serverError(0, 'PROTOCOL_CONNECTION_LOST'), { errno: undefined, fatal: true }))).toBe(false);
    expect(isRetryableTransactionError(serverError(1927, 'ER_CONNECTION_KILLED'))).toBe(false);
    expect(isRetryableTransactionError(serverError(1053, 'ER_SERVER_SHUTDOWN'))).toBe(false);
    expect(isRetryableTransactionError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', errno: -111 }))).toBe(false);
  });
});
