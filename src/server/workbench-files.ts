// Serves the built workbench (`dist/web`: index.html + assets/). Paths are resolved inside the
// assets folder and checked after following links, so no request can read a file outside it.
// Without a build, `/` explains how to make one instead of failing.

import { readFile, realpath, stat } from 'node:fs/promises';
import { basename, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../dist/web/', import.meta.url));

const HTML_TYPE = 'text/html; charset=utf-8';
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': HTML_TYPE,
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Headers for every page: no framing (approvals must not be clickjacked), no referrer, own scripts only. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export function contentTypeFor(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Glassbox</title></head>
<body>
<h1>Glassbox</h1>
<p>Workbench not built: run <code>npm run build</code>, then reload this page.</p>
<p>The HTTP API under <code>/api/</code> works without it (see docs/api.md).</p>
</body>
</html>
`;

export interface WorkbenchFile {
  body: Uint8Array<ArrayBuffer> | string;
  contentType: string;
  /** The gzip-compressed body, for types worth compressing; null otherwise. */
  gzip?: Uint8Array<ArrayBuffer> | null;
  /** Vite puts a content hash in every asset name: such a file never changes under its name. */
  immutable?: boolean;
}

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|wasm)|image\/svg)/;
/** `name-<hash>.ext` as Vite writes it (8 characters of base64url). */
const HASHED_NAME = /-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

/** Whether the request accepts gzip (`Accept-Encoding`, q=0 refuses). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== 'gzip' && name !== '*') return false;
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

export class WorkbenchFiles {
  private readonly root: string;
  /** Compressed once per file and build (keyed by path and mtime): assets are few and small. */
  private readonly compressed = new Map<string, { mtimeMs: number; gzip: Uint8Array<ArrayBuffer> }>();

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** index.html, or the "not built" page. */
  async index(): Promise<WorkbenchFile> {
    try {
      return { body: new Uint8Array(await readFile(join(this.root, 'index.html'))), contentType: HTML_TYPE };
    } catch {
      return { body: NOT_BUILT_PAGE, contentType: HTML_TYPE };
    }
  }

  /** A file under assets/, by its URL path after `/assets/` (still percent-encoded); null when there is none. */
  async asset(encodedPath: string): Promise<WorkbenchFile | null> {
    let relative: string;
    try {
      relative = decodeURIComponent(encodedPath);
    } catch {
      return null;
    }
    if (relative === '' || relative.includes('\0')) return null;
    const assets = join(this.root, 'assets');
    const candidate = resolve(assets, relative);
    if (!candidate.startsWith(assets + sep)) return null;
    try {
      const [real, realAssets] = await Promise.all([realpath(candidate), realpath(assets)]);
      if (!real.startsWith(realAssets + sep)) return null;
      const info = await stat(real);
      if (!info.isFile()) return null;
      const body = new Uint8Array(await readFile(real));
      const contentType = contentTypeFor(real);
      let gzip: Uint8Array<ArrayBuffer> | null = null;
      if (COMPRESSIBLE.test(contentType) && body.byteLength > 1024) {
        const known = this.compressed.get(real);
        if (known !== undefined && known.mtimeMs === info.mtimeMs) gzip = known.gzip;
        else {
          gzip = new Uint8Array(gzipSync(body, { level: 9 }));
          this.compressed.set(real, { mtimeMs: info.mtimeMs, gzip });
        }
      }
      return { body, contentType, gzip, immutable: HASHED_NAME.test(basename(real)) };
    } catch {
      return null;
    }
  }
}
