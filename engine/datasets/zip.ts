// Reads the entries of a zip archive (stored or deflated, no ZIP64) from its central directory: the ECB and
// Ordnance Survey publish their bulk files zipped, and the dataset mechanism only undoes gzip.
import zlib from "node:zlib";

export interface ZipEntry {
  name: string;
  /** The entry's bytes, decompressed. */
  read(): Buffer;
}

export const isZip = (b: Buffer) => b.length > 4 && b.readUInt32LE(0) === 0x04034b50;

export function zipEntries(zip: Buffer): ZipEntry[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error("the zip has no end-of-central-directory record (cut short?)");
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error("the zip's central directory is damaged");
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    entries.push({
      name,
      read() {
        const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
        const data = zip.subarray(start, start + size);
        if (method === 0) return data;
        if (method === 8) return zlib.inflateRawSync(data);
        throw new Error(`${name}: compression method ${method} is neither stored nor deflate`);
      },
    });
  }
  return entries;
}
