// The TUS 1.0.0 wire rules Burrow speaks (core, creation, termination, expiration, checksum
// with sha256). Each validator sits under the protocol sentence it enforces (quoted from
// https://tus.io/protocols/resumable-upload), so a reader can check one against the other.
// Pure functions over header values: no I/O, no req/res.
import { AppError, type AlsoStatus, type ErrorCode } from '../../core/errors.ts';

export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = ['creation', 'termination', 'expiration', 'checksum'] as const;
export const CHECKSUM_ALGORITHMS = ['sha256'] as const;
export const OFFSET_CONTENT_TYPE = 'application/offset+octet-stream';

/** Headers every TUS answer carries, errors included. */
export const TUS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Tus-Resumable': TUS_VERSION,
  'Cache-Control': 'no-store',
});

/** An error answer in the envelope, with the TUS headers the protocol asks for. */
export function tusError<C extends ErrorCode>(
  code: C,
  message?: string,
  headers: Record<string, string> = {},
  status?: AlsoStatus<C>,
): AppError {
  return new AppError(code, message, {
    headers: { ...TUS_HEADERS, ...headers },
    ...(status === undefined ? {} : { status }),
  });
}

type HeaderValue = string | string[] | undefined;
const single = (v: HeaderValue): string | undefined => (Array.isArray(v) ? v[0] : v)?.trim();

// "The Tus-Resumable header MUST be included in every request and response except for OPTIONS
// requests. [...] If the Server does not support the specified version, it MUST respond with the
// 412 Precondition Failed status and MUST include the Tus-Version header into the response."
export function checkTusResumable(value: HeaderValue): void {
  const v = single(value);
  if (v === undefined || v === '') {
    throw tusError('TUS_VERSION', 'The Tus-Resumable header is missing; this server speaks TUS 1.0.0.', {
      'Tus-Version': TUS_VERSION,
    });
  }
  if (v !== TUS_VERSION) {
    throw tusError('TUS_VERSION', `TUS version ${JSON.stringify(v)} is not supported; this server speaks TUS 1.0.0.`, {
      'Tus-Version': TUS_VERSION,
    });
  }
}

/** A non-negative decimal integer header (no sign, no fraction, no exponent, safe in JS). */
function nonNegativeInteger(value: string, header: string): number {
  if (!/^\d+$/.test(value))
    throw tusError(
      'TUS_BAD_HEADER',
      `${header} must be a non-negative whole number of bytes, not ${JSON.stringify(value.slice(0, 40))}.`,
    );
  const n = Number(value);
  if (!Number.isSafeInteger(n))
    throw tusError('TUS_TOO_LARGE', `${header} ${value.slice(0, 40)} is larger than any file this server can hold.`);
  return n;
}

// "The Upload-Length request and response header indicates the size of the entire upload in
// bytes. The value MUST be a non-negative integer." (creation) "If the length of the upload
// exceeds the maximum, which MAY be specified using the Tus-Max-Size header, the Server MUST
// respond with the 413 Request Entity Too Large status." Burrow does not defer lengths
// (Upload-Defer-Length is not advertised), so the header is required.
export function parseUploadLength(value: HeaderValue, deferValue: HeaderValue): number {
  const v = single(value);
  if (v === undefined || v === '') {
    if (single(deferValue) !== undefined)
      throw tusError('TUS_BAD_HEADER', 'Upload-Defer-Length is not supported here; send Upload-Length.');
    throw tusError('TUS_BAD_HEADER', 'The Upload-Length header is missing.');
  }
  return nonNegativeInteger(v, 'Upload-Length');
}

// "The Upload-Offset request and response header indicates a byte offset within a resource.
// The value MUST be a non-negative integer."
export function parseUploadOffset(value: HeaderValue): number {
  const v = single(value);
  if (v === undefined || v === '') throw tusError('TUS_BAD_HEADER', 'The Upload-Offset header is missing.');
  return nonNegativeInteger(v, 'Upload-Offset');
}

// "All PATCH requests MUST use Content-Type: application/offset+octet-stream, otherwise the
// server SHOULD return a 415 Unsupported Media Type status."
export function checkPatchContentType(value: HeaderValue): void {
  const v = single(value)?.split(';')[0]?.trim().toLowerCase();
  if (v !== OFFSET_CONTENT_TYPE) throw tusError('TUS_CONTENT_TYPE', `A PATCH must be sent as ${OFFSET_CONTENT_TYPE}.`);
}

// "If the offsets do not match, the Server MUST respond with the 409 Conflict status without
// modifying the upload resource."
export function checkOffsetMatches(sent: number, current: number): void {
  if (sent !== current)
    throw tusError(
      'TUS_OFFSET_MISMATCH',
      `Upload-Offset ${sent} does not match the server's offset ${current}; ask with HEAD and continue from there.`,
    );
}

// Not a protocol sentence but its consequence: bytes past Upload-Length can only be an error;
// answered like the size limit, 413, and the PATCH keeps nothing.
export function checkFitsLength(offset: number, contentLength: number | undefined, length: number): void {
  if (contentLength !== undefined && offset + contentLength > length) {
    throw tusError('TUS_PAST_LENGTH', `This PATCH would carry the upload past its Upload-Length of ${length} bytes.`);
  }
}

export interface UploadMetadata {
  [key: string]: string | null;
}

// "The Upload-Metadata request and response header MUST consist of one or more comma-separated
// key-value pairs. The key and value MUST be separated by a space. The key MUST NOT contain
// spaces and commas and MUST NOT be empty. The key SHOULD be ASCII encoded and the value MUST
// be Base64 encoded. All keys MUST be unique. The value MAY be empty. In these cases, the space,
// which would normally separate the key and the value, MAY be left out."
export function parseUploadMetadata(value: HeaderValue): UploadMetadata {
  const v = single(value) ?? '';
  const out: UploadMetadata = {};
  if (v === '') return out;
  for (const pair of v.split(',')) {
    const parts = pair.trim().split(' ');
    if (parts.length > 2)
      throw tusError('TUS_BAD_METADATA', 'Upload-Metadata pairs are "key base64value", separated by commas.');
    const [key, encoded] = parts as [string, string | undefined];
    if (!/^[\x21-\x7e]+$/.test(key) || key.includes(','))
      throw tusError('TUS_BAD_METADATA', `Upload-Metadata key ${JSON.stringify(key)} is not valid.`);
    if (Object.hasOwn(out, key))
      throw tusError('TUS_BAD_METADATA', `Upload-Metadata key ${JSON.stringify(key)} appears twice.`);
    if (encoded === undefined || encoded === '') {
      out[key] = null;
      continue;
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
      throw tusError('TUS_BAD_METADATA', `Upload-Metadata value of ${JSON.stringify(key)} is not Base64.`);
    }
    const decoded = Buffer.from(encoded, 'base64');
    const text = decoded.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(decoded))
      throw tusError('TUS_BAD_METADATA', `Upload-Metadata value of ${JSON.stringify(key)} is not UTF-8 text.`);
    out[key] = text;
  }
  return out;
}

export interface ChecksumRequest {
  algorithm: 'sha256';
  digest: Buffer;
}

// "The Upload-Checksum request header contains information about the checksum of the current
// body payload. The header MUST consist of the name of the used checksum algorithm and the
// Base64 encoded checksum separated by a space." "The Server MAY respond with one of the
// following status code: 400 Bad Request if the checksum algorithm is not supported by the
// server, 460 Checksum Mismatch if the checksums mismatch."
export function parseUploadChecksum(value: HeaderValue): ChecksumRequest | null {
  const v = single(value);
  if (v === undefined || v === '') return null;
  const m = /^(\S+) ([A-Za-z0-9+/]+={0,2})$/.exec(v);
  if (!m) throw tusError('TUS_BAD_CHECKSUM');
  if (m[1]!.toLowerCase() !== 'sha256')
    throw tusError('TUS_BAD_CHECKSUM', `Checksum algorithm ${JSON.stringify(m[1])} is not supported; use sha256.`);
  const digest = Buffer.from(m[2]!, 'base64');
  if (digest.length !== 32) throw tusError('TUS_BAD_CHECKSUM', 'A sha256 digest is 32 bytes (44 Base64 characters).');
  return { algorithm: 'sha256', digest };
}

export const checksumMismatch = () => tusError('TUS_CHECKSUM_MISMATCH');

// "The Upload-Expires response header indicates the time after which the unfinished upload
// expires. [...] The value of the Upload-Expires header MUST be in RFC 9110 datetime format."
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

// Burrow's spec (§3, finalize-failed): the PATCH and later HEADs carry `Upload-Finalize-Error`,
// a URI-encoded sentence.
export function finalizeErrorHeader(sentence: string): Record<string, string> {
  return { 'Upload-Finalize-Error': encodeURIComponent(sentence) };
}

/** Content-Length of a request, or undefined when chunked / absent. */
export function contentLength(value: HeaderValue): number | undefined {
  const v = single(value);
  if (v === undefined || v === '') return undefined;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw tusError('TUS_BAD_HEADER', 'Content-Length is not a whole number.');
  return Number(v);
}
