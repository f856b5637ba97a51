// Typed errors: thrown anywhere, shaped into the envelope in one place (http/server.ts).

export class AppError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, code?: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export const badRequest = (message: string, code?: string) => new AppError(400, message, code);
export const unauthorized = (message = 'Sign-in required.', code?: string) => new AppError(401, message, code);
export const forbidden = (message = 'You may not do this.', code?: string) => new AppError(403, message, code);
export const notFound = (message = 'Not found.', code?: string) => new AppError(404, message, code);
export const conflict = (message: string, code?: string) => new AppError(409, message, code);
export const tooMany = (message: string, retryAfterSeconds: number) =>
  new AppError(429, message, 'RATE_LIMITED', { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

/** The JSON body of every error answer. */
export function errorEnvelope(status: number, message: string, requestId: string, code?: string) {
  return { success: false as const, error: { message, statusCode: status, requestId, ...(code ? { code } : {}) } };
}

/** Maps Node file-system errors to answers that never leak absolute paths. */
export function fromFsError(err: unknown): AppError | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT': return new AppError(404, 'No such file or folder.', 'NOT_FOUND');
    case 'EEXIST': return new AppError(409, 'That name is already taken.', 'EXISTS');
    case 'ENOTDIR': return new AppError(400, 'A part of the path is not a folder.', 'NOT_A_FOLDER');
    case 'EISDIR': return new AppError(400, 'That is a folder, not a file.', 'IS_A_FOLDER');
    case 'EACCES': case 'EPERM': return new AppError(403, 'The server may not access this item.', 'PERMISSION');
    case 'EROFS': return new AppError(403, 'This volume is read-only.', 'READ_ONLY');
    case 'ENOSPC': case 'EDQUOT': return new AppError(507, 'The volume is full.', 'NO_SPACE');
    case 'ENAMETOOLONG': return new AppError(400, 'The name is too long.', 'NAME_TOO_LONG');
    case 'ENOTEMPTY': return new AppError(409, 'The folder is not empty.', 'NOT_EMPTY');
    case 'EXDEV': return null;
    default: return null;
  }
}
