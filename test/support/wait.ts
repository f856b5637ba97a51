// Tests wait on conditions, never on fixed sleeps: the one way every test waits.
//
//   await waitFor(() => s.logs.some((l) => l.msg === 'index catalogue finished'), { what: 'the catalogue' });
//   const item = await waitFor(async () => (await list()).find((i) => i.name === name), { what: `${name} listed` });
//   const usage = await waitFor(() => usageOf('Files'), { what: 'held 1234', until: (u) => u.held?.bytes === 1234 });
//
// The condition is asked at once, then again after 10 ms, 15 ms, 22 ms, … (every 200 ms at most,
// or every `everyMs`) until it holds — `until(value)` when given, else a truthy value — and the
// wait resolves with its value. After `timeoutMs` (10 s) the test fails with what it waited for
// and the last value seen (or what `seen` makes of it). A condition that throws ends the wait with its error.
// `inARow: instancesBehind(s)` asks until the condition holds that many times in a row, one ask
// after the other: behind the cluster's round-robin balancer, every instance has then said so.
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions<T> {
  /** What is waited for, as the failure says it: "timed out after 10000 ms waiting for <what>". */
  what: string;
  /** How long before the wait fails (default 10 000 ms). */
  timeoutMs?: number;
  /** A fixed interval between two asks (default: from 10 ms growing to 200 ms). */
  everyMs?: number;
  /** When the value is the awaited one (default: any truthy value). */
  until?: (value: T) => boolean;
  /** What to show when the wait fails, from the condition's last value (default: that value). */
  seen?: (last: T) => unknown;
  /** How many asks in a row, none between, must find it held (default 1). */
  inARow?: number;
}

/** A value the default `until` accepts. */
export type Held<T> = Exclude<T, undefined | null | false | 0 | ''>;

export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: WaitOptions<T> & { until: (value: T) => boolean },
): Promise<T>;
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions<T>): Promise<Held<T>>;
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions<T>): Promise<T> {
  const { what, timeoutMs = 10_000, everyMs, until = (v: T) => Boolean(v), seen, inARow = 1 } = options;
  const start = performance.now();
  let interval = everyMs ?? 10;
  for (;;) {
    let value = await condition();
    for (let held = 1; until(value); held++) {
      if (held >= inARow) return value;
      value = await condition();
    }
    const left = timeoutMs - (performance.now() - start);
    if (left <= 0) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${describe(seen ? seen(value) : value)}`,
      );
    }
    await sleep(Math.min(interval, left));
    if (everyMs === undefined) interval = Math.min(200, Math.ceil(interval * 1.5));
  }
}

/** A value as a line of the failure: JSON (a text's control characters seen), its last 1000 characters. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 1000 ? `…${value.slice(-1000)}` : value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 1000 ? `…${text.slice(-1000)}` : text;
}
