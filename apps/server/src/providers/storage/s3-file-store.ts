import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { checkFileKey, newPackKey, type FileStore } from './file-store.ts';

export type S3Settings = {
  bucket: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
};

// Files above this go up in parts, so a merged PDF or ZIP never needs one request of its whole size.
const PART_BYTES = 8 * 1024 * 1024;

/**
 * Files in a bucket of any S3-compatible store (AWS, MinIO, R2...), so every web and worker machine
 * reads what another wrote. Keys are the same relative paths as on disk.
 */
export function createS3FileStore(settings: S3Settings): FileStore & { client: S3Client } {
  const config: S3ClientConfig = {
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    // Checksums only where S3 requires them: other S3-compatible stores refuse the newer streaming checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  if (settings.accessKeyId && settings.secretAccessKey) config.credentials = { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey };
  const client = new S3Client(config);
  const Bucket = settings.bucket;
  const open = async (key: string, range?: { offset: number; length: number }) => {
    checkFileKey(key);
    try {
      const Range = range && `bytes=${range.offset}-${range.offset + range.length - 1}`;
      return (await client.send(new GetObjectCommand({ Bucket, Key: key, Range }))).Body ?? null;
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return null;
      throw error;
    }
  };

  const put = async (key: string, data: Uint8Array | Readable) => {
    checkFileKey(key);
    // One PutObject for a small file, a multipart upload for a large one or a stream.
    await new Upload({ client, params: { Bucket, Key: key, Body: data }, partSize: PART_BYTES, queueSize: 2 }).done();
  };

  return {
    client,
    put,
    async get(key) {
      const body = await open(key);
      return body ? Buffer.from(await body.transformToByteArray()) : null;
    },
    async getRange(key, offset, length) {
      const body = await open(key, { offset, length });
      if (!body) return null;
      const bytes = Buffer.from(await body.transformToByteArray());
      if (bytes.length !== length) throw new Error(`${key} ends before byte ${offset + length}`);
      return bytes;
    },
    async stream(key) {
      // In Node the SDK's body is a Readable: the file goes on to the client as it arrives.
      return (await open(key)) as Readable | null;
    },
    async signedUrl(key, fileName, expiresInSeconds) {
      checkFileKey(key);
      const command = new GetObjectCommand({ Bucket, Key: key, ResponseContentDisposition: `attachment; filename="${fileName}"` });
      return getSignedUrl(client, command, { expiresIn: expiresInSeconds });
    },
    async delete(key) {
      checkFileKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    // An object cannot be appended to: each pack is one.
    async appendToPack(prefix, data) {
      const key = newPackKey(prefix);
      await put(key, data);
      return { key, offset: 0 };
    },
    async close() {
      client.destroy();
    },
  };
}
