declare module 'png-js' {
  /** png-js (pdfkit's PNG reader): decode() hands the pixels as RGBA bytes. */
  export default class PNG {
    constructor(data: Uint8Array);
    width: number;
    height: number;
    decode(done: (pixels: Uint8Array) => void): void;
  }
}
