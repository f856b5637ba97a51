// Messages between the archive service and its 7-Zip worker (sevenzip.worker.ts).

export type SevenZipJob =
  | { type: 'list' }
  /** Extract exactly these entry paths (no wildcards); bytes come back as messages, never as files. */
  | { type: 'extract'; names: string[] };

/** A stretch of the bytes 7-Zip sees: a range of the archive's descriptor, or bytes made here. */
export type ViewPart = { at: number; length: number } | { bytes: Uint8Array };

export interface SevenZipWorkerData {
  module: WebAssembly.Module;
  fd: number;
  /** What 7-Zip sees: the descriptor's size, or the view's total. */
  size: number;
  /** When present, 7-Zip reads these parts one after another instead of the descriptor as it is. */
  view?: ViewPart[];
  /** The archive's own name (7-Zip picks some handlers by extension: .iso, .cab…). */
  name: string;
  job: SevenZipJob;
  /** Int32 [bytes in flight, abort flag]: the worker waits while the first is over its bound. */
  control: SharedArrayBuffer;
}

export interface SevenZipListed {
  path: string;
  folder: boolean;
  link: boolean;
  device: boolean;
  size: number | null;
  modified: string | null;
  encrypted: boolean;
}

export type FromSevenZip =
  | { type: 'entries'; entries: SevenZipListed[] }
  | { type: 'open'; path: string }
  | { type: 'data'; chunk: Uint8Array }
  | { type: 'close' }
  | { type: 'end'; code: number; errors: string[] };

/** Bytes the worker may have sent that the main thread has not written yet. */
export const IN_FLIGHT_LIMIT = 8 * 1024 * 1024;
