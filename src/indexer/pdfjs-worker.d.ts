// pdf.js as the extractor loads it: the minified builds (0.7 MB less in the executable), typed
// by the readable build they are made from. Its parsing half ships without types; the
// extractor hands it to pdf.js's API as the in-thread "worker" (globalThis.pdfjsWorker).
declare module 'pdfjs-dist/legacy/build/pdf.worker.min.mjs' {
  export const WorkerMessageHandler: unknown;
}
declare module 'pdfjs-dist/legacy/build/pdf.min.mjs' {
  export * from 'pdfjs-dist/legacy/build/pdf.mjs';
}
