import { PROBLEM_DOMAINS, PROBLEMS } from './index';

describe('the problem catalog', () => {
  it('declares each code in exactly one domain, so no domain silently redefines another one', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [domain, entries] of Object.entries(PROBLEM_DOMAINS)) {
      for (const code of Object.keys(entries)) {
        if (seen.has(code)) twice.push(`${code} in ${seen.get(code)} and ${domain}`);
        seen.set(code, domain);
      }
    }
    expect(twice).toEqual([]);
    expect(seen.size).toBe(Object.keys(PROBLEMS).length);
  });

  it('gives every code an UPPER_SNAKE name, an error status and a title', () => {
    const bad = Object.entries(PROBLEMS).filter(
      ([code, entry]) => !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(code) || entry.status < 400 || entry.status > 599 || entry.title.trim() === '',
    );
    expect(bad).toEqual([]);
  });
});
