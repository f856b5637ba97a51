// Moved to src/core/log.ts. This re-export goes with src/http/errors.ts (same reason).
export * from '../core/log.ts';
