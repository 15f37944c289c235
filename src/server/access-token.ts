// The server's access token: generated per start unless given, compared in constant time, and
// restricted to characters that survive a URL query, a cookie value and a header unescaped.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_COOKIE = 'glassbox_token';
const TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,256}$/;

export function generateAccessToken(): string {
  return randomBytes(24).toString('base64url');
}

/** A problem with a user-chosen token, or null when it is usable. */
export function accessTokenProblem(token: string): string | null {
  if (TOKEN_PATTERN.test(token)) return null;
  return 'the access token must be 16 to 256 characters from A-Z a-z 0-9 . _ ~ -';
}

/**
 * Constant-time equality. Hashing first makes both sides the same length, so the comparison
 * leaks neither the token's content nor its length.
 */
export function tokensMatch(expected: string, candidate: string | null | undefined): boolean {
  if (typeof candidate !== 'string' || candidate === '') return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(candidate).digest();
  return timingSafeEqual(a, b);
}

/** The token from `Authorization: Bearer …`, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** The value of one cookie from a `Cookie` header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return null;
}

export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}
