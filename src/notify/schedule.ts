// When a held message goes out: an account's quiet hours and its hourly or daily digests, in the
// account's own time zone. Pure functions over an instant (milliseconds since the epoch), and the
// clock they are asked with: the system's, or for tests a file holding the time (NOTIFY_CLOCK_FILE)
// — read when a decision is made, so a test moves time by writing the file, never by sleeping.
import fs from 'node:fs';

export type DeliveryMode = 'now' | 'hourly' | 'daily';

export interface Schedule {
  timeZone: string;
  /** Local "HH:MM" to "HH:MM" (across midnight when `to` is earlier); null: none. */
  quietHours: { from: string; to: string } | null;
  /** Local "HH:MM" the daily digest goes out. */
  dailyAt: string;
}

export type Clock = () => number;

/** The system clock, or the time written in `file` (ISO 8601) when one is named. */
export function clockOf(file: string | null): Clock {
  if (!file) return Date.now;
  return () => {
    const at = Date.parse(fs.readFileSync(file, 'utf8').trim());
    if (Number.isNaN(at)) throw new Error('NOTIFY_CLOCK_FILE does not hold an ISO 8601 time');
    return at;
  };
}

/** Is this an IANA time zone name the runtime knows? */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, f);
  }
  return f;
}

interface Local {
  y: number;
  m: number;
  d: number;
  h: number;
  min: number;
}

/** The wall clock in `timeZone` at instant `t`. */
function localAt(timeZone: string, t: number): Local & { s: number } {
  const parts: Record<string, number> = {};
  for (const p of format(timeZone).formatToParts(new Date(t)))
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, m: parts.month!, d: parts.day!, h: parts.hour!, min: parts.minute!, s: parts.second! };
}

/** How far `timeZone` is ahead of UTC at instant `t`. */
function offsetAt(timeZone: string, t: number): number {
  const l = localAt(timeZone, t);
  return Date.UTC(l.y, l.m - 1, l.d, l.h, l.min, l.s) - (t - (((t % 1000) + 1000) % 1000));
}

/** The instant the wall clock in `timeZone` shows this date and time (after a DST gap: just after it). */
function instantOf(timeZone: string, l: Local): number {
  const asUtc = Date.UTC(l.y, l.m - 1, l.d, l.h, l.min);
  const first = asUtc - offsetAt(timeZone, asUtc);
  const second = asUtc - offsetAt(timeZone, first);
  return first === second ? first : Math.max(first, second);
}

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The first instant after `now` at which the wall clock shows `minutes` past midnight. */
function nextLocal(timeZone: string, now: number, minutes: number): number {
  const l = localAt(timeZone, now);
  for (let day = 0; day < 3; day++) {
    const date = new Date(Date.UTC(l.y, l.m - 1, l.d + day));
    const t = instantOf(timeZone, {
      y: date.getUTCFullYear(),
      m: date.getUTCMonth() + 1,
      d: date.getUTCDate(),
      h: Math.floor(minutes / 60),
      min: minutes % 60,
    });
    if (t > now) return t;
  }
  return now + 86_400_000;
}

/** Is instant `t` inside the quiet hours? */
export function isQuiet(s: Schedule, t: number): boolean {
  if (!s.quietHours) return false;
  const l = localAt(s.timeZone, t);
  const m = l.h * 60 + l.min;
  const from = minutesOf(s.quietHours.from);
  const to = minutesOf(s.quietHours.to);
  if (from === to) return false;
  return from < to ? m >= from && m < to : m >= from || m < to;
}

/**
 * When a message made at `now` goes out: at once (`now`), at the next full hour, at the next
 * daily time — and never inside the quiet hours: then at their end.
 */
export function releaseAt(s: Schedule, mode: DeliveryMode, now: number): number {
  let at = now;
  if (mode === 'hourly') {
    const l = localAt(s.timeZone, now);
    at = nextLocal(s.timeZone, now, ((l.h + 1) % 24) * 60);
  } else if (mode === 'daily') {
    at = nextLocal(s.timeZone, now, minutesOf(s.dailyAt));
  }
  if (isQuiet(s, at)) at = nextLocal(s.timeZone, at, minutesOf(s.quietHours!.to));
  return at;
}
