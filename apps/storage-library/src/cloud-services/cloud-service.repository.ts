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

  async insert(record: Omit<CloudServiceRecord, 'id'>): Promise<number> {
    const [id] = await this.db.knex('cloud_services').insert({
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

  /** Whether a row of the account was there to rename. */
  async rename(accountId: number, id: number, name: string): Promise<boolean> {
    const [row] = await this.db.execute<{ id: number }>('SELECT id FROM cloud_services WHERE account_id = ? AND id = ?', [accountId, id]);
    if (!row) return false;
    await this.db.knex('cloud_services').where({ account_id: accountId, id }).update({ name });
    return true;
  }

  async delete(accountId: number, id: number): Promise<boolean> {
    return (await this.db.knex('cloud_services').where({ account_id: accountId, id }).delete()) > 0;
  }
}
