// The checks every request passes before a handler sees it: the Host header names this server
// (against DNS rebinding), a present Origin is this server's own (against cross-site requests),
// and API calls carry the token (cookie or Bearer).

import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { bearerToken, cookieValue, TOKEN_COOKIE, tokensMatch } from './access-token.js';
import { HttpError } from './http-error.js';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

export interface GuardSettings {
  /** The host the server was asked to bind, e.g. `127.0.0.1`, `0.0.0.0`, `my-box.lan`. */
  bindHost: string;
  /** The port actually bound; null before `listen`. */
  port: () => number | null;
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function splitHost(header: string): { name: string; port: string } | null {
  // Without a port the client means the scheme's default, 80 for http.
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(header.trim());
  return match ? { name: match[1]!.toLowerCase(), port: match[2] ?? '80' } : null;
}

/**
 * Whether a `Host` header names this server. Bound to loopback, any loopback name is fine; bound
 * to a wildcard address, any IP literal or `localhost` is (a DNS rebinding attack needs a domain
 * name); bound to a name, exactly that name.
 */
export function hostAllowed(header: string | undefined, settings: Pick<GuardSettings, 'bindHost'>, port: number | null): boolean {
  if (header === undefined || port === null) return false;
  const parts = splitHost(header);
  if (parts === null || Number(parts.port) !== port) return false;
  const bind = settings.bindHost.toLowerCase();
  if (LOOPBACK_NAMES.has(bind) || LOOPBACK_NAMES.has(bracketed(bind))) return LOOPBACK_NAMES.has(parts.name);
  if (WILDCARD_HOSTS.has(bind)) {
    const bare = parts.name.replace(/^\[|\]$/g, '');
    return parts.name === 'localhost' || isIP(bare) !== 0;
  }
  return parts.name === bracketed(bind);
}

export function hostGuard(settings: GuardSettings): MiddlewareHandler {
  return async (c, next) => {
    if (!hostAllowed(c.req.header('host'), settings, settings.port())) {
      throw new HttpError(403, 'the Host header does not name this server');
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== `http://${c.req.header('host')}`) {
      throw new HttpError(403, 'cross-origin requests are not allowed');
    }
    await next();
  };
}

/** The request's token is the server's (from the cookie or a Bearer header). */
export function isAuthenticated(token: string, cookieHeader: string | undefined, authorization: string | undefined): boolean {
  const bearer = bearerToken(authorization);
  if (bearer !== null) return tokensMatch(token, bearer);
  return tokensMatch(token, cookieValue(cookieHeader, TOKEN_COOKIE));
}

export function authGuard(token: string): MiddlewareHandler {
  return async (c, next) => {
    if (!isAuthenticated(token, c.req.header('cookie'), c.req.header('authorization'))) {
      throw new HttpError(401, 'missing or wrong access token: open the URL glassbox serve printed, or send Authorization: Bearer <token>');
    }
    await next();
  };
}
