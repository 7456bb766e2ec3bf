/**
 * Decides whether file bytes go to the model as text or as binary content, and with which MIME type.
 * The extension names the type; the bytes can overrule it (a PNG is a PNG whatever its name), and a
 * NUL byte near the start marks an unknown binary.
 */

const BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  avif: 'image/avif',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  wasm: 'application/wasm',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  exe: 'application/octet-stream',
  dll: 'application/octet-stream',
  so: 'application/octet-stream',
  dylib: 'application/octet-stream',
  class: 'application/java-vm',
  jar: 'application/java-archive',
  sqlite: 'application/vnd.sqlite3',
  db: 'application/octet-stream',
};

const SIGNATURES: readonly { mime: string; bytes: readonly number[]; offset?: number }[] = [
  { mime: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mime: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { mime: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  { mime: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { mime: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { mime: 'application/gzip', bytes: [0x1f, 0x8b] },
  { mime: 'application/wasm', bytes: [0x00, 0x61, 0x73, 0x6d] },
];

/** How many leading bytes are searched for a NUL. */
const SNIFF_BYTES = 8000;

export type FileKind = { kind: 'text' } | { kind: 'binary'; mimeType: string };

export function classifyFile(fileName: string, bytes: Uint8Array): FileKind {
  const sniffed = sniff(bytes);
  if (sniffed) return { kind: 'binary', mimeType: sniffed };
  const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase();
  const byName = ext !== undefined ? BY_EXTENSION[ext] : undefined;
  if (byName) return { kind: 'binary', mimeType: byName };
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return { kind: 'binary', mimeType: 'application/octet-stream' };
  return { kind: 'text' };
}

function sniff(bytes: Uint8Array): string | undefined {
  for (const sig of SIGNATURES) {
    if (bytes.length >= sig.bytes.length && sig.bytes.every((b, i) => bytes[i] === b)) return sig.mime;
  }
  // RIFF....WEBP
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return 'image/webp';
  return undefined;
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length));
}
