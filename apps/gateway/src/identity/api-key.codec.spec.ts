import { issueApiKey, parseApiKey, secretMatches } from './api-key.codec';

describe('API key codec', () => {
  it('issues keys whose secret only its hash can confirm', () => {
    const issued = issueApiKey();
    const parsed = parseApiKey(issued.apiKey);
    expect(parsed?.keyId).toBe(issued.keyId);
    expect(secretMatches(parsed?.secret ?? '', issued.secretSha256)).toBe(true);
    expect(secretMatches(`${parsed?.secret.slice(0, -1)}x`, issued.secretSha256)).toBe(false);
    expect(issued.secretSha256.toString('hex')).not.toContain(parsed?.secret);
  });

  it('issues distinct keys', () => {
    expect(issueApiKey().apiKey).not.toBe(issueApiKey().apiKey);
  });

  it.each(['', 'rmk_short_x', 'Bearer rmk_abc', `rmk_${'a'.repeat(16)}_${'b'.repeat(42)}`])('refuses the malformed key %p', (key) => {
    expect(parseApiKey(key)).toBeNull();
  });
});
