import { listWithTotal } from './mysql.page';

describe(listWithTotal.name, () => {
  it('maps the page rows and reads the total from the count row', async () => {
    const page = await listWithTotal({ rows: Promise.resolve([{ id: 3 }, { id: 4 }]), count: Promise.resolve([{ total: 12 }]) }, (row) => `#${row.id}`);
    expect(page).toEqual({ items: ['#3', '#4'], total: 12 });
  });

  it('reads a total the driver returned as a string or bigint', async () => {
    expect((await listWithTotal({ rows: Promise.resolve([]), count: Promise.resolve([{ total: '40' }]) }, (row) => row)).total).toBe(40);
    expect((await listWithTotal({ rows: Promise.resolve([]), count: Promise.resolve([{ total: 7n }]) }, (row) => row)).total).toBe(7);
  });

  it('fails when either query fails', async () => {
    await expect(listWithTotal({ rows: Promise.resolve([]), count: Promise.reject(new Error('count failed')) }, (row) => row)).rejects.toThrow('count failed');
  });
});
