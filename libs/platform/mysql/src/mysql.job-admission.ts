import type { Knex } from 'knex';
import { problem } from '@platform/errors';
import type { Migration } from './mysql.migration-source';

/**
 * The table admitJob locks on, one row per account and job kind. runGrpcService applies it to every
 * service's schema (beside the outbox), so a service that starts accepting jobs needs no migration.
 */
export const jobAdmissionMigration: Migration = {
  name: '20261125004000_create_job_admission_locks',
  async up(knex) {
    await knex.schema.createTable('job_admission_locks', (t) => {
      t.comment('One row per account and job kind, locked while a job is admitted so that concurrent admissions count one after another');
      t.bigInteger('account_id').notNullable();
      t.string('kind', 64).notNullable();
      t.primary(['account_id', 'kind'], 'pk_job_admission_locks');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('job_admission_locks');
  },
};

export interface JobAdmission {
  accountId: number;
  kind: string;
  /** Jobs of the kind the account may have queued or running at once; undefined: no cap. */
  cap: number | undefined;
  /** The account's jobs of the kind not yet in a terminal state, read on `trx` from the service's own queue table. */
  countActive(trx: Knex.Transaction): Promise<number>;
}

/**
 * The per-account cap on concurrent jobs, checked in the transaction that queues the job (before its
 * queue row is written). The account's lock row serializes admissions of one account and kind, so two
 * requests at once cannot both see room for one job; a job leaves the count when its queue row reaches
 * Completed or Failed, so there is nothing to release. Refuses with 429 JOB_LIMIT_REACHED.
 */
export async function admitJob(trx: Knex.Transaction, admission: JobAdmission): Promise<void> {
  const { accountId, kind, cap } = admission;
  if (cap === undefined) return;
  // ON DUPLICATE KEY UPDATE takes the row's exclusive lock at once (INSERT IGNORE would take a shared one, and two of those deadlock on upgrade).
  await trx.raw('INSERT INTO job_admission_locks (account_id, kind) VALUES (?, ?) ON DUPLICATE KEY UPDATE kind = kind', [accountId, kind]);
  const active = await admission.countActive(trx);
  if (active >= cap) {
    throw problem('JOB_LIMIT_REACHED', `Account ${accountId} already has ${active} ${kind} jobs queued or running, its limit; retry when one has finished.`);
  }
}
