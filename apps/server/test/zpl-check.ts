/// <reference path="./png-js.d.ts" />
import { BarcodeFormat, BinaryBitmap, DecodeHintType, HybridBinarizer, MultiFormatReader, RGBLuminanceSource } from '@zxing/library';
import PNG from 'png-js';
import { ready } from 'zpl-renderer-js';

/** A ZPL label as a printer would print it: zebrash (zpl-renderer-js, WebAssembly) renders it at 203 dpi on a 4x6 label. */
export async function printZpl(zpl: string): Promise<{ width: number; height: number; gray: Uint8ClampedArray }[]> {
  const { api } = await ready;
  const images = await api.zplToBase64MultipleAsync(zpl, 101.6, 152.4, 8);
  return Promise.all(
    images.map(
      (b64) =>
        new Promise<{ width: number; height: number; gray: Uint8ClampedArray }>((resolve) => {
          const png = new PNG(Buffer.from(b64, 'base64'));
          png.decode((pixels: Uint8Array) => {
            const gray = new Uint8ClampedArray(png.width * png.height);
            for (let i = 0; i < gray.length; i++) gray[i] = pixels[i * 4];
            resolve({ width: png.width, height: png.height, gray });
          });
        }),
    ),
  );
}

/** The Code 128 / GS1-128 barcode a printed label carries, decoded by ZXing (GS1's FNC1 separators as \x1d). */
export function decodeCode128(image: { width: number; height: number; gray: Uint8ClampedArray }): string {
  const reader = new MultiFormatReader();
  reader.setHints(
    new Map<DecodeHintType, unknown>([
      [DecodeHintType.POSSIBLE_FORMATS, [BarcodeFormat.CODE_128]],
      [DecodeHintType.TRY_HARDER, true],
    ]),
  );
  return reader.decode(new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(image.gray, image.width, image.height)))).getText();
}

/** The ZPL II structure of one label: its commands in order, each label within ^XA..^XZ. */
export function zplCommands(zpl: string): { labels: string[][] } {
  const labels: string[][] = [];
  let current: string[] | null = null;
  for (const match of zpl.matchAll(/[\^~]([A-Z@][A-Z0-9@]?)([^\^~]*)/g)) {
    const command = match[1];
    if (command === 'XA') current = [];
    if (!current) throw new Error(`^${command} outside ^XA..^XZ`);
    current.push(`${command}${match[2].trim()}`);
    if (command === 'XZ') {
      labels.push(current);
      current = null;
    }
  }
  if (current) throw new Error('A label without ^XZ');
  return { labels };
}
