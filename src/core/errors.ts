// The one error catalogue. Every answer that is not a success carries a code from ERRORS, and
// the code decides the status (a few codes name the same refusal in more than one protocol
// situation; their other statuses are listed in `also`, so the table stays the whole truth of
// which code answers with which status). The OpenAPI error component lists these codes.
//
//   throw new AppError('NOT_FOUND');                          // status 404, default message
//   throw new AppError('BAD_NAME', `"${name}" is not a valid name.`);
//   throw new AppError('RATE_LIMITED', undefined, { headers: { 'Retry-After': '30' } });

interface Entry {
  readonly status: number;
  readonly message: string;
  readonly also?: readonly number[];
}

export const ERRORS = {
  // Requests in general
  BAD_REQUEST: { status: 400, message: 'The request is not valid.' },
  BAD_PATH: { status: 400, message: 'The path is not valid.' },
  INVALID_QUERY: { status: 400, message: 'The query string is not valid.' },
  INVALID_BODY: { status: 400, message: 'The request body is not valid.' },
  INVALID_PARAMS: { status: 400, message: 'A path parameter is not valid.' },
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  BODY_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send the body as JSON with Content-Type: application/json.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not allowed here.' },
  NOT_FOUND: { status: 404, message: 'Not found.' },
  FORBIDDEN: { status: 403, message: 'You may not do this.' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state.' },
  RATE_LIMITED: { status: 429, message: 'Too many attempts from this address. Try again later.' },
  CROSS_SITE_REFUSED: { status: 403, message: 'This change was sent from another site and was refused.' },
  HOST_NOT_ALLOWED: { status: 421, message: 'Burrow does not answer for this host name.' },
  FEATURE_OFF: { status: 409, message: 'This feature is turned off on this server.' },
  SET_BY_ENVIRONMENT: {
    status: 409,
    message: 'This setting is fixed by an environment variable: change the variable and restart Burrow.',
  },
  INTERNAL: { status: 500, message: 'Something went wrong on the server. Quote the request id when reporting it.' },
  DATABASE_UNAVAILABLE: {
    status: 503,
    message: 'The database cannot be reached just now; nothing was changed. Try again in a few seconds.',
  },

  // Credentials, accounts and the guard
  AUTH_REQUIRED: { status: 401, message: 'Sign-in required.' },
  AUTH_INVALID_CREDENTIALS: { status: 401, message: 'The sign-in name or password is wrong.' },
  AUTH_CONFIRM_REQUIRED: {
    status: 403,
    message:
      'Confirm it is you: this account has no password here, so sign in again (with the directory, the identity provider or a passkey) and try again.',
  },
  AUTH_ACCOUNT_LOCKED: {
    status: 429,
    message: 'Too many failed attempts: this account is locked for now. Try again later.',
  },
  AUTH_METHOD_DISABLED: { status: 403, message: 'This way of signing in is turned off on this installation.' },
  AUTH_INVALID_TOTP_CODE: { status: 401, message: 'The code is wrong.' },
  AUTH_PASSKEY_REJECTED: { status: 401, message: 'The passkey was not accepted.' },
  AUTH_TOKEN_REQUIRED: {
    status: 401,
    message: 'This account signs in with a second factor: use an API token as the password here.',
  },
  AUTH_TOKEN_INVALID: { status: 401, message: 'The API token is not valid.' },
  AUTH_TOKEN_NOT_ALLOWED: {
    status: 403,
    message: 'API tokens may not be used on account, administration or terminal routes.',
  },
  AUTH_TOKEN_READ_ONLY: { status: 403, message: 'This API token may only read.' },
  ADMIN_ONLY: { status: 403, message: 'Administrators only.' },
  SETUP_DONE: { status: 403, message: 'Setup is already complete.' },
  NO_PASSWORD: { status: 400, message: 'This account has no password yet; add one instead.' },
  PASSWORD_EXISTS: { status: 409, message: 'This account already has a password.' },
  PASSWORD_SESSION_REQUIRED: { status: 403, message: 'Sign in with your password to do this.' },
  LAST_SIGN_IN_METHOD: { status: 409, message: 'This is the only way into this account: add another first.' },
  USER_NOT_FOUND: { status: 404, message: 'No such account.' },
  USERNAME_TAKEN: { status: 409, message: 'Username already in use.' },
  EMAIL_TAKEN: { status: 409, message: 'Email already in use.' },
  LAST_ADMIN: { status: 409, message: 'This is the last administrator: give another account the admin role first.' },
  CANNOT_DELETE_SELF: { status: 409, message: 'You cannot delete your own account.' },
  TOKEN_LIMIT: { status: 409, message: 'This account holds as many live API tokens as it may; revoke one first.' },
  TOKEN_NOT_FOUND: { status: 404, message: 'No such API token.' },

  // Second factor, passkeys, identity provider
  TOTP_ALREADY_ON: { status: 409, message: 'A second factor is already on; turn it off first to set up a new one.' },
  TOTP_NOT_ON: { status: 409, message: 'The second factor is off.' },
  TOTP_NOT_PENDING: { status: 409, message: 'No second-factor setup is waiting: start it first.' },
  PASSKEY_CHALLENGE_INVALID: {
    status: 400,
    message: 'This passkey ceremony is not the one started for this account, or it expired: start again.',
  },
  PASSKEY_INVALID: { status: 400, message: 'The passkey answer could not be used.' },
  PASSKEY_EXISTS: { status: 409, message: 'This passkey is already registered.' },
  PASSKEY_NAME_REQUIRED: {
    status: 400,
    message:
      'Passkeys belong to a name (burrow.local, localhost), never to a numeric address: open Burrow by its name.',
  },
  OIDC_PROVIDER_UNAVAILABLE: { status: 503, message: 'The identity provider cannot be reached.' },
  OIDC_PROVIDER_ERROR: { status: 502, message: "The identity provider's answer could not be used." },
  OIDC_STATE_INVALID: { status: 400, message: 'This sign-in is not the one that was started here: sign in again.' },
  OIDC_ACCESS_DENIED: { status: 403, message: 'The identity provider did not sign you in.' },
  OIDC_NOT_CONFIGURED: { status: 404, message: 'Sign-in through an identity provider is not configured.' },
  LDAP_UNAVAILABLE: {
    status: 503,
    message:
      'The directory (LDAP) cannot be reached, so directory accounts cannot sign in now. Local accounts still can.',
  },
  OIDC_EXCHANGE_REJECTED: { status: 401, message: 'The sign-in code was not accepted: sign in again.' },

  // Paths, names and items
  PATH_OUTSIDE: { status: 403, message: 'The path leads outside its volume.' },
  TOP_LEVEL: { status: 400, message: 'Name a file or folder inside a volume.', also: [403] },
  READ_ONLY: { status: 403, message: 'This item is read-only.' },
  PERMISSION: { status: 403, message: 'The server may not access this item.' },
  BAD_NAME: { status: 400, message: 'The name is not valid.' },
  NAME_TOO_LONG: { status: 400, message: 'The name is too long.' },
  EXISTS: { status: 409, message: 'That name is already taken.', also: [405] },
  NOT_EMPTY: { status: 409, message: 'The folder is not empty.' },
  NOT_A_FOLDER: { status: 400, message: 'A part of the path is not a folder.', also: [409] },
  NOT_A_FILE: { status: 400, message: 'That is not a regular file.' },
  IS_A_FOLDER: { status: 400, message: 'That is a folder, not a file.' },
  IS_A_LINK: { status: 400, message: 'That is a link.' },
  INTO_ITSELF: { status: 400, message: 'A folder cannot be put inside itself.', also: [403] },
  NO_ITEMS: { status: 400, message: 'Name at least one item.' },
  NO_SPACE: { status: 507, message: 'The volume is full.' },
  QUOTA_EXCEEDED: {
    status: 507,
    message: 'This would go over a quota; nothing was kept.',
  },
  NO_DOWNLOAD: { status: 403, message: 'You may not download this.' },
  // The access model (access/)
  ACCESS_NOT_MANAGER: {
    status: 403,
    message: 'Only an administrator or someone who manages this folder may see or change who has access to it.',
  },
  GROUP_NOT_FOUND: { status: 404, message: 'No such group.' },
  GROUP_NAME_TAKEN: { status: 409, message: 'A group of that name already exists.' },
  RULE_NOT_FOUND: { status: 404, message: 'No such access rule.' },
  BINARY: { status: 415, message: 'This is a binary file, not text.' },
  EDITOR_CHANGED: { status: 412, message: 'The file changed since you opened it.' },
  TOO_LARGE: { status: 400, message: 'The file is too large for this.', also: [413] },
  NOT_PREVIEWABLE: { status: 415, message: 'This file has no preview.' },
  VIDEO_NEEDS_FFMPEG: {
    status: 501,
    message:
      'This video cannot play in a browser as it is, and the server has no ffmpeg to convert it: install ffmpeg on the server (Debian, Ubuntu, Raspberry Pi OS: `sudo apt install ffmpeg`; Fedora: `sudo dnf install ffmpeg`; macOS: `brew install ffmpeg`; Windows: `winget install ffmpeg`), then open the video again. Until then, download it to watch it.',
  },
  VIDEO_BUSY: {
    status: 503,
    message:
      'The server is already converting as many videos as it can at once (VIDEO_TRANSCODES, VIDEO_STREAMS): try again when one has finished, or download the file.',
  },
  VIDEO_LINK_NOT_ALLOWED: {
    status: 403,
    message:
      'This video must be converted to play in a browser, and the owner of this link has not allowed that for visitors: download it to watch it.',
  },
  UNSUPPORTED_TYPE: { status: 415, message: 'This type of file is not supported here.' },
  BAD_ORDER: { status: 400, message: '`order` must name every favourite exactly once.' },
  BAD_TAG: { status: 400, message: 'The tag is not valid.' },
  SEARCH_TERM_TOO_SHORT: { status: 400, message: 'The search term is too short.' },
  SEARCH_TERM_TOO_LONG: { status: 400, message: 'The search term is too long.' },
  SEARCH_TERM_INVALID: { status: 400, message: 'The search term may not contain control characters.' },
  SEARCH_FIELD_INVALID: { status: 400, message: 'A field of the search is not valid.' },
  SEARCH_PATTERN_TOO_BROAD: {
    status: 400,
    message: 'A pattern needs some characters besides * and ?; it would match every name.',
  },

  // Volumes and permissions (administration)
  VOLUME_ROOT: { status: 400, message: 'The volume root itself cannot be changed.' },
  BAD_MODE: { status: 400, message: 'The mode must be 3 or 4 octal digits, such as "755" or "0640".' },
  NOTHING_TO_CHANGE: { status: 400, message: 'Name an owner, a group, or both.' },
  UNKNOWN_OWNER: { status: 400, message: 'No such owner on this server.' },
  UNKNOWN_GROUP: { status: 400, message: 'No such group on this server.' },
  PERMISSIONS_UNSUPPORTED_PLATFORM: { status: 501, message: 'File permissions cannot be changed on this platform.' },

  // Uploads (multipart and TUS)
  NOT_MULTIPART: { status: 400, message: 'Send the files as multipart/form-data with the files in "filedata".' },
  BAD_MULTIPART: { status: 400, message: 'The multipart body is not valid.' },
  WRONG_FIELD: { status: 400, message: 'An unexpected field arrived in the upload.' },
  MISSING_DESTINATION: { status: 400, message: 'The uploadTo field must come before the file.' },
  BAD_DESTINATION: { status: 400, message: 'Uploads go into a folder of a volume, not the top.' },
  NO_FILE: { status: 400, message: 'No file arrived in the "filedata" field.' },
  UPLOAD_ABORTED: { status: 400, message: 'The upload was interrupted before it was complete; nothing was kept.' },
  UPLOAD_TOO_LARGE: { status: 413, message: 'The file is larger than this server accepts.' },
  UPLOAD_TOO_MANY_FILES: { status: 413, message: 'Too many files in one upload request.' },
  UPLOAD_TOO_MANY_FIELDS: { status: 413, message: 'Too many fields in one upload request.' },
  UPLOAD_CHUNKED_DISABLED: {
    status: 404,
    message:
      'Resumable (TUS) uploads are turned off on this server (UPLOAD_CHUNKED_ENABLED=false); use POST /api/upload.',
  },
  // The status is the one the placement failed with (kept with the upload and repeated on HEAD).
  UPLOAD_FINALIZE_FAILED: {
    status: 423,
    message: 'The upload arrived but could not be placed.',
    also: [400, 403, 404, 409, 413, 500, 507],
  },
  TUS_VERSION: { status: 412, message: 'This server speaks TUS 1.0.0.' },
  TUS_BAD_HEADER: { status: 400, message: 'A TUS header is missing or not valid.' },
  TUS_BAD_METADATA: { status: 400, message: 'Upload-Metadata is not valid.' },
  TUS_BAD_CHECKSUM: { status: 400, message: 'Upload-Checksum must be "<algorithm> <base64 digest>".' },
  TUS_CHECKSUM_MISMATCH: {
    status: 460,
    message: 'The Upload-Checksum does not match the bytes received; nothing of this PATCH was kept.',
  },
  TUS_CONTENT_TYPE: { status: 415, message: 'A PATCH must be sent as application/offset+octet-stream.' },
  TUS_NOT_FOUND: { status: 404, message: 'No such upload (it may have expired or been cancelled).' },
  TUS_OFFSET_MISMATCH: { status: 409, message: "Upload-Offset does not match the upload's offset." },
  TUS_PAST_LENGTH: { status: 413, message: "This PATCH carries more bytes than the upload's Upload-Length." },
  TUS_TOO_LARGE: { status: 413, message: 'The upload is larger than this server accepts.' },
  TUS_BUSY: { status: 409, message: 'Another request is working on this upload; try again shortly.' },
  // Add from link (fetch a file from a web address)
  FETCH_BAD_URL: { status: 400, message: 'That is not an http or https address.' },
  FETCH_ADDRESS_REFUSED: {
    status: 403,
    message: 'That address is not on the public internet, so Burrow does not fetch from it.',
  },
  FETCH_UNREACHABLE: { status: 502, message: 'The other server could not be reached or stopped sending.' },
  FETCH_REMOTE_STATUS: { status: 502, message: 'The other server did not send the file.' },
  FETCH_REDIRECTS: { status: 502, message: 'The other server sent too many redirects.' },
  FETCH_TIMEOUT: { status: 504, message: 'The other server did not answer in time.' },
  FETCH_TOO_LARGE: { status: 413, message: 'The file is larger than this server fetches.' },
  FETCH_TOO_MANY: { status: 429, message: 'Too many fetches are running; wait for one to finish.' },
  FETCH_CANCELLED: { status: 409, message: 'The fetch was cancelled; nothing was kept.' },
  FETCH_INTERRUPTED: {
    status: 503,
    message: 'The server that was fetching the file stopped before it finished; nothing was kept. Add it again.',
  },
  FETCH_NOT_FOUND: { status: 404, message: 'No such fetch (finished ones are kept for an hour).' },
  TUS_SUPERSEDED: { status: 409, message: 'A newer request for this upload took over; ask for the offset with HEAD.' },

  // Thumbnails
  PICTURE_UNREADABLE: {
    status: 422,
    message: 'This picture is damaged or in a form Burrow cannot read, so it has no thumbnail.',
  },

  // Archives
  ARCHIVE_BAD_POSITION: { status: 400, message: 'That name points outside the archive.' },
  ARCHIVE_ENTRY_NOT_FOUND: { status: 404, message: 'That entry is not in the archive.' },
  ARCHIVE_ENCRYPTED: { status: 409, message: 'The archive is protected by a password.' },
  ARCHIVE_TOO_MANY_ENTRIES: { status: 413, message: 'The archive holds more entries than this server lists.' },
  ARCHIVE_TOO_LARGE_TO_BROWSE: { status: 413, message: 'This archive is too large to browse; extract it instead.' },
  ARCHIVE_UNREADABLE: { status: 422, message: 'The archive is damaged or unreadable.' },
  ARCHIVE_UNSUPPORTED: { status: 415, message: 'This is not an archive format Burrow can open.' },

  // Terminal
  TERMINAL_DISABLED: { status: 404, message: 'The terminal is not enabled on this server.' },
  TERMINAL_UNAVAILABLE: { status: 503, message: 'The terminal cannot start on this server.' },
  TERMINAL_LIMIT: { status: 429, message: 'Too many terminal sessions are open.' },
  TERMINAL_TICKET_INVALID: {
    status: 403,
    message: 'The terminal ticket is missing, used, expired, or was issued to another session or page.',
  },

  // Office editing (WOPI and ONLYOFFICE)
  OFFICE_DISCOVERY_UNREACHABLE: { status: 502, message: 'The office editing server cannot be reached.' },
  OFFICE_DISCOVERY_INVALID: {
    status: 502,
    message: 'The office editing server answered a discovery document Burrow cannot use.',
  },
  OFFICE_TOKEN_INVALID: { status: 401, message: 'The access token is not valid for this file.' },
  OFFICE_TOO_LARGE: { status: 413, message: 'The document is too large.' },
  OFFICE_UNSUPPORTED_TYPE: { status: 415, message: 'The office editor does not open this type of file.' },
  ONLYOFFICE_BAD_URL: { status: 400, message: 'The callback carries no valid document URL.' },
  ONLYOFFICE_FOREIGN_URL: {
    status: 400,
    message: 'The edited document must come from the configured document server.',
  },
  ONLYOFFICE_UNSIGNED: { status: 401, message: 'The callback is not signed with the document server secret.' },
  ONLYOFFICE_FETCH_FAILED: {
    status: 502,
    message: 'The edited document could not be fetched from the document server.',
  },
  WOPI_BAD_LOCK: { status: 400, message: 'X-WOPI-Lock is missing, empty or too long.' },
  WOPI_BAD_TARGET: { status: 400, message: 'Send exactly one of X-WOPI-SuggestedTarget and X-WOPI-RelativeTarget.' },
  WOPI_LOCK_MISMATCH: { status: 409, message: 'The file is locked with another lock.' },
  WOPI_TOO_LARGE: { status: 412, message: 'The file is larger than X-WOPI-MaxExpectedSize.' },
  WOPI_NOT_SUPPORTED: { status: 501, message: 'This WOPI operation is not supported.' },
  // WOPI: "if a request isn't signed properly, the host must return a 500 Internal Server Error".
  WOPI_PROOF_INVALID: { status: 500, message: 'The call is not signed by the office editing server (WOPI proof key)' },

  // Sharing: an unknown, expired or deleted link answer one identical 404 (no oracle)
  SHARE_NOT_FOUND: { status: 404, message: 'No such share.' },
  LINK_NOT_FOUND: { status: 404, message: 'This link does not exist or is no longer valid.' },
  LINK_PASSWORD_REQUIRED: { status: 403, message: 'This link is protected by a password.' },
  LINK_PASSWORD_WRONG: { status: 403, message: 'The password of this link is wrong.' },
  LINK_SIGN_IN_REQUIRED: { status: 401, message: 'This link is shared with named accounts: sign in first.' },
  LINK_NOT_ALLOWED: { status: 403, message: 'This link does not allow that.' },
  LINK_FILE_REQUEST_FULL: { status: 413, message: 'This file request takes no more files or bytes.' },
  LINK_FILE_REQUEST_LENGTH: {
    status: 411,
    message: 'This file request limits its bytes: send the upload with a Content-Length (or use TUS).',
  },
  SHARE_BAD_EXPIRY: { status: 400, message: 'The expiry must be a date in the future.' },
  SHARE_BAD_USERS: { status: 400, message: 'A share with named accounts needs at least one other existing account.' },

  // Locks of WebDAV clients and the office editor, honoured by every door (files/locks.ts)
  LOCKED: { status: 423, message: 'The item is locked by another account (a WebDAV client or the office editor).' },

  // WebDAV
  DAV_ABORTED: { status: 400, message: 'The upload ended before its last byte; nothing was kept.' },
  DAV_BAD_DEPTH: { status: 400, message: 'The Depth header is not valid.' },
  DAV_BAD_DESTINATION: { status: 400, message: 'The Destination header is not valid.' },
  DAV_BAD_IF: { status: 400, message: 'The If header is not valid.' },
  DAV_BAD_LOCK_TOKEN: { status: 400, message: 'The Lock-Token header is not valid.' },
  DAV_BAD_OVERWRITE: { status: 400, message: 'The Overwrite header must be T or F.' },
  DAV_BAD_REFRESH: { status: 400, message: 'A lock refresh names no lock.' },
  DAV_BAD_XML: { status: 400, message: 'The XML body is not valid.' },
  DAV_BODY_TOO_LARGE: { status: 413, message: 'The XML body is too large.' },
  DAV_EXISTS: { status: 412, message: 'The destination exists and Overwrite is F.' },
  DAV_INFINITE_DEPTH: { status: 403, message: 'Depth: infinity is not served here.' },
  DAV_IS_COLLECTION: { status: 405, message: 'That is a collection.' },
  DAV_LOCKED: { status: 423, message: 'The resource is locked; submit the lock token in the If header.' },
  DAV_METHOD: { status: 405, message: 'This method is not allowed here.' },
  DAV_MKCOL_BODY: { status: 415, message: 'MKCOL takes no body.' },
  DAV_NOT_LOCK_OWNER: { status: 403, message: 'This lock belongs to another account.' },
  DAV_NO_DESTINATION: { status: 400, message: 'The Destination header is missing.' },
  DAV_NO_PARENT: { status: 409, message: 'The parent collection does not exist.' },
  DAV_NO_SUCH_LOCK: { status: 409, message: 'No such lock.' },
  DAV_OTHER_SERVER: { status: 502, message: 'The destination is on another server.' },
  DAV_PARTIAL_PUT: { status: 400, message: 'Content-Range on PUT is not supported.' },
  DAV_PRECONDITION: { status: 412, message: 'A precondition of the request does not hold.' },
  DAV_SAME_RESOURCE: { status: 403, message: 'The source and the destination are the same.' },
  DAV_TOO_MANY_LOCKS: { status: 403, message: 'This account holds as many locks as it may; unlock some first.' },
} as const satisfies Record<string, Entry>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/** The other statuses a code may answer with (never for most codes). */
export type AlsoStatus<C extends ErrorCode> = C extends ErrorCode
  ? (typeof ERRORS)[C] extends { readonly also: readonly (infer S)[] }
    ? S
    : never
  : never;

export interface ErrorOptions<C extends ErrorCode = ErrorCode> {
  headers?: Record<string, string>;
  /** Only one of the code's `also` statuses. */
  status?: AlsoStatus<C>;
  cause?: unknown;
  /** Figures a client may show (QUOTA_EXCEEDED: scope, usedBytes, limitBytes, neededBytes), sent as `error.details`. */
  details?: Record<string, string | number>;
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;
  readonly details?: Record<string, string | number>;

  constructor(code: C, message?: string, options: ErrorOptions<C> = {}) {
    const entry: Entry = ERRORS[code];
    super(message ?? entry.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status ?? entry.status;
    this.code = code;
    this.headers = options.headers ?? {};
    if (options.details) this.details = options.details;
  }

  /** The same answer with more headers (a protocol's own, such as TUS's). */
  withHeaders(headers: Record<string, string>): AppError {
    // The status is this error's own, so it is one the catalogue allows for the code.
    return new AppError(this.code, this.message, {
      headers: { ...headers, ...this.headers },
      status: this.status as never,
      cause: this.cause,
      ...(this.details ? { details: this.details } : {}),
    });
  }
}

/** A 429 with Retry-After in whole seconds (at least 1). */
export const tooMany = (message: string, retryAfterSeconds: number) =>
  new AppError('RATE_LIMITED', message, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });

/** The JSON body of every error answer. */
export function errorEnvelope(
  status: number,
  message: string,
  requestId: string,
  code?: string,
  details?: Record<string, string | number>,
) {
  return {
    success: false as const,
    error: { message, statusCode: status, requestId, ...(code ? { code } : {}), ...(details ? { details } : {}) },
  };
}

/** Maps Node file-system errors to answers that never leak absolute paths. */
export function fromFsError(err: unknown): AppError | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return new AppError('NOT_FOUND', 'No such file or folder.');
    case 'EEXIST':
      return new AppError('EXISTS');
    case 'ENOTDIR':
      return new AppError('NOT_A_FOLDER');
    case 'EISDIR':
      return new AppError('IS_A_FOLDER');
    case 'EACCES':
    case 'EPERM':
      return new AppError('PERMISSION');
    case 'EROFS':
      return new AppError('READ_ONLY', 'This volume is read-only.');
    case 'ENOSPC':
    case 'EDQUOT':
      return new AppError('NO_SPACE');
    case 'ENAMETOOLONG':
      return new AppError('NAME_TOO_LONG');
    case 'ENOTEMPTY':
      return new AppError('NOT_EMPTY');
    default:
      return null;
  }
}
