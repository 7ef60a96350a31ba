import type { RequestHandler } from 'express';
import { problem } from '@platform/errors';

const LOGO_FILE = /^([a-z0-9-]{1,64})\.svg$/;

/**
 * Ad-server logos referenced by logoUrl: a generated monogram badge, so the catalog's URLs resolve
 * without shipping third-party trademarks. Deterministic, so caches can keep it for a day.
 */
export const adServerLogo: RequestHandler = (req, res, next) => {
  const match = LOGO_FILE.exec(String(req.params.file));
  if (!match) return next(problem('LOGO_NOT_FOUND', `No logo named ${String(req.params.file)}.`));
  const id = match[1];
  const monogram = id
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 3)
    .toUpperCase();
  const hue = [...id].reduce((sum, ch) => sum + ch.charCodeAt(0), 0) % 360;
  res
    .type('image/svg+xml')
    .set('Cache-Control', 'public, max-age=86400')
    .send(
      `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="hsl(${hue},55%,42%)"/><text x="32" y="39" font-family="sans-serif" font-size="18" font-weight="700" text-anchor="middle" fill="#fff">${monogram}</text></svg>`,
    );
};
