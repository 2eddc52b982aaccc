import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';

/**
 * A minimal zip writer for tests that need archives no library would write: declared sizes that
 * lie, entries that inflate to hundreds of megabytes from a repeated chunk (streamed, so the test
 * itself never holds the inflated bytes), or a real XLSX with one part replaced.
 */
export interface ZipEntry {
  name: string;
  /** The deflated bytes and what they inflate to. */
  compressed: Buffer;
  crc: number;
  size: number;
  /** Sizes written in the headers; default the true size. */
  declaredSize?: number;
}

export function entry(name: string, data: Buffer | string): ZipEntry {
  const bytes = Buffer.from(data);
  return { name, compressed: deflateRawSync(bytes), crc: crc32(bytes), size: bytes.length };
}

/** An entry whose content is `chunk` repeated `times` times, deflated without ever being whole. */
export async function repeatedEntry(name: string, chunk: Buffer | string, times: number, prefix = '', suffix = ''): Promise<ZipEntry> {
  const piece = Buffer.from(chunk);
  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (data: Buffer) => out.push(data));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  let crc = 0;
  let size = 0;
  const write = async (data: Buffer) => {
    crc = crc32(data, crc);
    size += data.length;
    if (!deflate.write(data)) await new Promise((resolve) => deflate.once('drain', resolve));
  };
  await write(Buffer.from(prefix));
  for (let i = 0; i < times; i++) await write(piece);
  await write(Buffer.from(suffix));
  deflate.end();
  await done;
  return { name, compressed: Buffer.concat(out), crc, size };
}

export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const item of entries) {
    const name = Buffer.from(item.name);
    const size = item.declaredSize ?? item.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(item.crc >>> 0, 14);
    local.writeUInt32LE(item.compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(item.crc >>> 0, 16);
    central.writeUInt32LE(item.compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, item.compressed);
    centrals.push(central, name);
    offset += local.length + name.length + item.compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Every part of a zip, inflated (for small, trusted test files only). */
export async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const archive = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const parts = new Map<string, Buffer>();
  for await (const item of archive.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await archive.openReadStreamPromise(item)) chunks.push(chunk as Buffer);
    parts.set(item.fileName, Buffer.concat(chunks));
  }
  return parts;
}

/** The zip again with some parts changed (return undefined from `edit` to drop a part). */
export async function rezip(bytes: Buffer, edit: (name: string, text: string) => string | undefined): Promise<Buffer> {
  const parts = await unzip(bytes);
  const entries: ZipEntry[] = [];
  for (const [name, data] of parts) {
    const next = edit(name, data.toString('utf8'));
    if (next !== undefined) entries.push(entry(name, next === data.toString('utf8') ? data : next));
  }
  return zip(entries);
}
