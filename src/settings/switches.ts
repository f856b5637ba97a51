// The installation switches that apply without a restart (Administration → Installation): folder
// sizes (the indexer's mode) and the administrator's terminal. Each is stored in the database;
// its environment variable wins when it is set (FOLDER_SIZE_MODE, TERMINAL_ENABLED), and the
// screen names it. A change is told to the subscribers (the indexer, the terminal), which apply
// it in the background: nothing is walked or started in the request that switched it.
//
// On a cluster a switch set through one instance is followed by every other (`follow`): the
// settings row's trigger NOTIFYs the change stream's `config` signal (cluster/004_config_version
// .pg.sql), and each instance reads its switches again when it hears it (or when its stream was
// lost and came back) and tells its own subscribers what changed — the folder-size walk starts or
// stops there, and its open shells end while new sockets are refused — within the NOTIFY's round trip.
import { CONFIG_TOPIC, type ConfigSignals } from '../cluster/config-cache.ts';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { onNextTurn } from '../core/next-turn.ts';
import type { SettingsService } from './service.ts';
import type { FolderSizeMode } from './wire.ts';

export class Switch<T> {
  readonly variable: string;
  private readonly fixed: { value: T } | null;
  private readonly stored: () => T;
  private readonly store: (value: T) => void;
  private readonly log: Logger;
  private readonly listeners = new Set<() => void>();
  /** The value the subscribers were last told of (they started with it). */
  private applied: T;

  constructor(o: {
    variable: string;
    /** The variable's value when the environment set it. */
    fixed: { value: T } | null;
    stored: () => T;
    store: (value: T) => void;
    log: Logger;
  }) {
    this.variable = o.variable;
    this.fixed = o.fixed;
    this.stored = o.stored;
    this.store = o.store;
    this.log = o.log;
    this.applied = this.now();
  }

  /** The variable that fixes this setting (set in the environment), else null. */
  get setBy(): string | null {
    return this.fixed ? this.variable : null;
  }

  now(): T {
    return this.fixed ? this.fixed.value : this.stored();
  }

  /** Throws 409 SET_BY_ENVIRONMENT when the variable fixes another value. */
  check(value: T): void {
    if (this.fixed && this.fixed.value !== value)
      throw new AppError(
        'SET_BY_ENVIRONMENT',
        `This setting is set by ${this.variable} in Burrow's environment: change or remove the variable there and restart Burrow.`,
      );
  }

  /** Stores a new value and tells the subscribers; refused (409) while the variable fixes another. */
  set(value: T): void {
    this.check(value);
    if (this.fixed) return;
    this.store(value);
    this.apply();
  }

  /**
   * Reads the value again (set here, or through another instance) and tells the subscribers
   * when it is not the one they were last told of.
   */
  apply(): void {
    if (this.fixed) return;
    const value = this.now();
    if (value === this.applied) return;
    this.applied = value;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (err) {
        this.log.warn('a setting change could not be applied', { setting: this.variable, err });
      }
    }
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export interface InstallationSwitches {
  folderSizes: Switch<FolderSizeMode>;
  terminal: Switch<boolean>;
}

/**
 * Every instance follows the switches set through any other: at each `config` signal of the
 * change stream, and when the stream was lost or came back (a signal may have been missed), the
 * switches are read again — after the configuration cache dropped what it held (the cache hears
 * the signal in the same turn; the read waits for the next) — and applied here.
 */
export function followSwitches(switches: InstallationSwitches, signals: ConfigSignals, log: Logger): () => void {
  const again = onNextTurn(() => {
    for (const s of [switches.folderSizes, switches.terminal] as Switch<unknown>[]) {
      try {
        s.apply();
      } catch (err) {
        // PostgreSQL away: the stream's return calls this again.
        log.warn('a switch could not be read again', { setting: s.variable, err });
      }
    }
  });
  return signals.on(CONFIG_TOPIC, again, again);
}

export function installationSwitches(config: Config, settings: SettingsService, log: Logger): InstallationSwitches {
  const set = (name: string) => config.fromEnvironment.includes(name);
  return {
    folderSizes: new Switch<FolderSizeMode>({
      variable: 'FOLDER_SIZE_MODE',
      fixed: set('FOLDER_SIZE_MODE') ? { value: config.folderSize.mode } : null,
      stored: () => settings.storedFolderSizeMode(),
      store: (mode) => settings.storeFolderSizeMode(mode),
      log,
    }),
    terminal: new Switch<boolean>({
      variable: 'TERMINAL_ENABLED',
      fixed: set('TERMINAL_ENABLED') ? { value: config.terminal.enabled } : null,
      stored: () => settings.storedTerminalEnabled(),
      store: (enabled) => settings.storeTerminalEnabled(enabled),
      log,
    }),
  };
}
