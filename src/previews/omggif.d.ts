// The part of omggif (no published types) that the thumbnails use.
declare module 'omggif' {
  export class GifReader {
    constructor(bytes: Uint8Array);
    width: number;
    height: number;
    numFrames(): number;
    decodeAndBlitFrameRGBA(frame: number, pixels: Uint8Array): void;
  }
}
