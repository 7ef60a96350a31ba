import { parseAdQuery, queryWithoutMacros } from './ad-query';

describe(queryWithoutMacros.name, () => {
  it('drops parameters an ad server left as its macro before percent-decoding could mangle them', () => {
    const params = queryWithoutMacros('?plc=1&mp=2&cmp=3&cb=%%CACHEBUSTER%%&click=%%CLICK_URL_ESC%%&gdpr=${GDPR}&ds_city=[CITY]&ds_store=12');
    expect([...params.keys()]).toEqual(['plc', 'mp', 'cmp', 'ds_store']);
  });

  it('keeps expanded values, decoded', () => {
    const params = queryWithoutMacros('cb=12345678&click=https%3A%2F%2Fads.example%2Fc%3Fu%3D&ds_weather.condition=light+rain');
    expect(params.get('cb')).toBe('12345678');
    expect(params.get('click')).toBe('https://ads.example/c?u=');
    expect(params.get('ds_weather.condition')).toBe('light rain');
  });
});

describe(parseAdQuery.name, () => {
  it('reads the ids, the dynamic campaign, the signals by lower-cased name and the request id from the cache-buster', () => {
    const query = parseAdQuery(new URLSearchParams('plc=11&mp=21&cmp=101&dc=5&cb=777&ds_Weather.Condition=rain&adchoices=1&mraid=1&rf=1'));
    expect(query).toMatchObject({
      placementId: 11,
      mediaPlanId: 21,
      retailCampaignId: 101,
      dynamicCampaignId: 5,
      requestId: '777',
      adChoices: true,
      mraid: true,
      nativeJson: true,
    });
    expect([...(query?.signals ?? [])]).toEqual([['weather.condition', 'rain']]);
  });

  it('refuses a query without positive integer plc, mp and cmp', () => {
    for (const bad of ['mp=1&cmp=1', 'plc=0&mp=1&cmp=1', 'plc=1.5&mp=1&cmp=1', 'plc=-1&mp=1&cmp=1', 'plc=1&mp=x&cmp=1'])
      expect(parseAdQuery(new URLSearchParams(bad))).toBeNull();
  });

  it('takes a click prefix only when it is an http(s) URL', () => {
    expect(parseAdQuery(new URLSearchParams('plc=1&mp=1&cmp=1&click=javascript:alert(1)'))?.clickPrefix).toBeNull();
    expect(parseAdQuery(new URLSearchParams('plc=1&mp=1&cmp=1&click=https://ads.example/c?u='))?.clickPrefix).toBe('https://ads.example/c?u=');
  });
});
