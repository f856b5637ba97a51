// The part of libheif-js (libheif with libde265, compiled to WebAssembly; LGPL-3.0) that the
// HEIF decoder thread uses (heif.worker.ts). The package's own types describe its browser use.
declare module 'libheif-js/libheif-wasm/libheif-bundle.js' {
  interface HeifImage {
    get_width(): number;
    get_height(): number;
    display(
      target: { data: Uint8ClampedArray; width: number; height: number },
      done: (result: { data: Uint8ClampedArray } | null) => void,
    ): void;
    free(): void;
  }
  interface LibHeif {
    HeifDecoder: new () => { decode(bytes: Uint8Array): HeifImage[] };
    HEAPU8: Uint8Array;
  }
  /** Instantiates the module (its WebAssembly is inside this file); `print`/`printErr` take its console. */
  const factory: (options?: { print?: (s: string) => void; printErr?: (s: string) => void }) => LibHeif;
  export default factory;
}
