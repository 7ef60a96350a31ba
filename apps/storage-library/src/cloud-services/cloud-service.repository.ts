import type { Knex } from 'knex';
import type { ServiceDatabase } from '@platform/mysql';
import type { CloudServiceRecord } from './cloud-service.model';

interface CloudServiceRow {
  id: number;
  account_id: number;
  name: string;
  service_type: string;
  bucket: string;
  prefix: string;
  endpoint: string;
  region: string;
  sealed_credentials: Buffer;
}

const toRecord = (row: CloudServiceRow): CloudServiceRecord => ({
  id: Number(row.id),
  accountId: Number(row.account_id),
  name: row.name,
  serviceType: row.service_type,
  bucket: row.bucket,
  prefix: row.prefix,
  endpoint: row.endpoint,
  region: row.region,
  sealedCredentials: row.sealed_credentials,
});

export class CloudServiceRepository {
  constructor(private readonly db: ServiceDatabase) {}

  async list(accountId: number): Promise<CloudServiceRecord[]> {
    return (await this.db.execute<CloudServiceRow>('SELECT * FROM cloud_services WHERE account_id = ? ORDER BY id', [accountId])).map(toRecord);
  }

  async find(accountId: number, id: number): Promise<CloudServiceRecord | undefined> {
    const [row] = await this.db.execute<CloudServiceRow>('SELECT * FROM cloud_services WHERE account_id = ? AND id = ?', [accountId, id]);
    return row && toRecord(row);
  }

  /** The row as the transaction that changes it sees it, locked until that transaction ends. */
  async findForUpdate(trx: Knex.Transaction, accountId: number, id: number): Promise<CloudServiceRecord | undefined> {
    const row = (await trx<CloudServiceRow>('cloud_services').where({ account_id: accountId, id }).forUpdate().first()) as CloudServiceRow | undefined;
    return row && toRecord(row);
  }

  async insert(trx: Knex.Transaction, record: Omit<CloudServiceRecord, 'id'>): Promise<number> {
    const [id] = await trx('cloud_services').insert({
      account_id: record.accountId,
      name: record.name,
      service_type: record.serviceType,
      bucket: record.bucket,
      prefix: record.prefix,
      endpoint: record.endpoint,
      region: record.region,
      sealed_credentials: record.sealedCredentials,
    });
    return Number(id);
  }

  async rename(trx: Knex.Transaction, accountId: number, id: number, name: string): Promise<void> {
    await trx('cloud_services').where({ account_id: accountId, id }).update({ name });
  }

  async delete(trx: Knex.Transaction, accountId: number, id: number): Promise<void> {
    await trx('cloud_services').where({ account_id: accountId, id }).delete();
  }
}
