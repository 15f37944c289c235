// Binary detection for read_file. A known extension settles it without opening the file; anything
// else is binary when a NUL byte appears in its first 8 KB (text encodings the tools handle,
// UTF-8 and ASCII, never contain NUL).

import { extname } from 'node:path';

export const BINARY_SNIFF_BYTES = 8192;

const BINARY_EXTENSIONS = new Set([
  // images
  'png',
  'jpg',
  'jpeg',
  'gif',
  'bmp',
  'ico',
  'icns',
  'webp',
  'tif',
  'tiff',
  'psd',
  'heic',
  'avif',
  // archives and packages
  'zip',
  'gz',
  'tgz',
  'bz2',
  'xz',
  'zst',
  '7z',
  'rar',
  'tar',
  'jar',
  'war',
  'whl',
  'deb',
  'rpm',
  'dmg',
  'iso',
  // compiled code and libraries
  'exe',
  'dll',
  'so',
  'dylib',
  'o',
  'obj',
  'a',
  'lib',
  'class',
  'pyc',
  'pyo',
  'wasm',
  'node',
  // documents
  'pdf',
  'doc',
  'docx',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'odt',
  'ods',
  // fonts
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  // audio and video
  'mp3',
  'mp4',
  'm4a',
  'mov',
  'avi',
  'mkv',
  'webm',
  'wav',
  'flac',
  'ogg',
  // databases
  'sqlite',
  'sqlite3',
  'db',
]);

export function hasBinaryExtension(path: string): boolean {
  return BINARY_EXTENSIONS.has(extname(path).slice(1).toLowerCase());
}

export function containsNulByte(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}
