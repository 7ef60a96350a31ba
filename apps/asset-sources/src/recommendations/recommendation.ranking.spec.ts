import type { RecommendationMapEntry } from '../sources/asset-source.model';
import { rankRecommendations, type CatalogueItem } from './recommendation.ranking';

const catalogue: CatalogueItem[] = [
  { key: 'A', row: { sku: 'A', category: 'shoes', brand: 'nike', price: 100 } },
  { key: 'B', row: { sku: 'B', category: 'shoes', brand: 'adidas', price: '105' } },
  { key: 'C', row: { sku: 'C', category: 'shoes', brand: 'nike', price: 200 } },
  { key: 'D', row: { sku: 'D', category: 'shirts', brand: 'nike', price: 98 } },
  { key: 'E', row: { sku: 'E', category: 'hats', brand: 'puma', price: 500 } },
];

const map: RecommendationMapEntry[] = [
  { assetSourceColumn: 'category', dataType: 'string', priority: 3 },
  { assetSourceColumn: 'brand', dataType: 'string', priority: 2 },
  { assetSourceColumn: 'price', dataType: 'numeric', acceptedRange: 10 },
];

describe(rankRecommendations.name, () => {
  // Worked by hand: category +3 when equal, brand +2 when equal, price +1 within 10.
  // A-B 3+1=4, A-C 3+2=5, A-D 2+1=3, B-C 3, B-D 1 (|105-98|=7), C-D 2, E shares nothing.
  it('ranks the top other items by weighted matches, leaving out those sharing nothing', () => {
    const ranked = rankRecommendations(catalogue, { map, max: 2 });
    expect(Object.fromEntries(ranked)).toEqual({
      A: [
        { key: 'C', score: 5 },
        { key: 'B', score: 4 },
      ],
      B: [
        { key: 'A', score: 4 },
        { key: 'C', score: 3 },
      ],
      C: [
        { key: 'A', score: 5 },
        { key: 'B', score: 3 },
      ],
      D: [
        { key: 'A', score: 3 },
        { key: 'C', score: 2 },
      ],
      E: [],
    });
  });

  it('breaks ties by source row order and honours maxRecommendations', () => {
    const ranked = rankRecommendations(catalogue, { map: [{ assetSourceColumn: 'category', dataType: 'string', priority: 1 }], max: 3 });
    expect(ranked.get('C')).toEqual([
      { key: 'A', score: 1 },
      { key: 'B', score: 1 },
    ]);
    expect(rankRecommendations(catalogue, { map, max: 1 }).get('D')).toEqual([{ key: 'A', score: 3 }]);
  });

  it('counts an exact numeric match only when acceptedRange is 0', () => {
    const items = [
      { key: 'x', row: { price: 10 } },
      { key: 'y', row: { price: 10 } },
      { key: 'z', row: { price: 11 } },
    ];
    expect(rankRecommendations(items, { map: [{ assetSourceColumn: 'price', dataType: 'numeric', acceptedRange: 0 }], max: 5 }).get('x')).toEqual([
      { key: 'y', score: 1 },
    ]);
  });

  it('adds co-occurrence counts (hybrid) or uses them alone (collaborative), ignoring items outside the catalogue', () => {
    const coOccurrence = new Map([
      [
        'E',
        new Map([
          ['A', 2],
          ['gone', 9],
        ]),
      ],
      ['A', new Map([['E', 2]])],
    ]);
    expect(rankRecommendations(catalogue, { coOccurrence, max: 5 }).get('E')).toEqual([{ key: 'A', score: 2 }]);
    expect(rankRecommendations(catalogue, { coOccurrence, max: 5 }).get('B')).toEqual([]);
    expect(rankRecommendations(catalogue, { map, coOccurrence, max: 2 }).get('A')).toEqual([
      { key: 'C', score: 5 },
      { key: 'B', score: 4 },
    ]);
    expect(
      rankRecommendations(catalogue, { map, coOccurrence, max: 5 })
        .get('A')
        ?.find((r) => r.key === 'E'),
    ).toEqual({ key: 'E', score: 2 });
  });
});
