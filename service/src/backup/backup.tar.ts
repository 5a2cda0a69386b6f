import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Readable, Writable } from 'node:stream';

const BLOCK = 512;
const NAME_MAX = 100;
const PREFIX_MAX = 155;
const SIZE_MAX = 0o77777777777;

/** A regular file's size and SHA-256 (hex), as written to or read from an archive. */
export interface EntryDigest {
  size: number;
  sha256: string;
}

/** Writes a POSIX tar stream (ustar, with pax records for long names and large files) to `out`, honouring back-pressure. */
export class TarWriter {
  constructor(private readonly out: Writable) {}

  /** Adds a directory entry. */
  async directory(name: string): Promise<void> {
    await this.header(name.endsWith('/') ? name : `${name}/`, 0, '5', 0o700);
  }

  /** Adds a file from memory. */
  async buffer(name: string, data: Buffer): Promise<EntryDigest> {
    await this.header(name, data.length, '0', 0o600);
    await this.write(data);
    await this.pad(data.length);
    return { size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
  }

  /** Adds the file at `source` as it is now: its size is taken first, and a file that shrinks meanwhile is an error. */
  async file(name: string, source: string): Promise<EntryDigest> {
    const handle = await fs.promises.open(source, 'r');
    try {
      const { size } = await handle.stat();
      await this.header(name, size, '0', 0o600);
      const hash = createHash('sha256');
      const chunk = Buffer.alloc(Math.min(1024 * 1024, Math.max(size, 1)));
      let done = 0;
      while (done < size) {
        const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - done), done);
        if (bytesRead === 0) throw new Error(`${source} shrank while it was being copied`);
        const piece = Buffer.from(chunk.subarray(0, bytesRead));
        hash.update(piece);
        await this.write(piece);
        done += bytesRead;
      }
      await this.pad(size);
      return { size, sha256: hash.digest('hex') };
    } finally {
      await handle.close();
    }
  }

  /** Writes the two zero blocks that end an archive. */
  async finish(): Promise<void> {
    await this.write(Buffer.alloc(BLOCK * 2));
  }

  private async header(name: string, size: number, type: '0' | '5', mode: number): Promise<void> {
    const split = splitName(name);
    const pax: string[] = [];
    if (!split) pax.push(paxRecord('path', name));
    if (size > SIZE_MAX) pax.push(paxRecord('size', String(size)));
    if (pax.length > 0) {
      const body = Buffer.from(pax.join(''), 'utf8');
      await this.write(ustarHeader({ name: 'PaxHeader', prefix: '' }, body.length, 'x', 0o600));
      await this.write(body);
      await this.pad(body.length);
    }
    await this.write(ustarHeader(split ?? { name: name.slice(-NAME_MAX), prefix: '' }, size > SIZE_MAX ? 0 : size, type, mode));
  }

  private pad(size: number): Promise<void> {
    const rest = size % BLOCK;
    return rest === 0 ? Promise.resolve() : this.write(Buffer.alloc(BLOCK - rest));
  }

  private write(data: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.out.write(data, (err) => (err ? reject(err) : resolve()));
    });
  }
}

function splitName(name: string): { name: string; prefix: string } | undefined {
  if (Buffer.byteLength(name) <= NAME_MAX) return { name, prefix: '' };
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= PREFIX_MAX && Buffer.byteLength(rest) <= NAME_MAX && rest) return { name: rest, prefix };
  }
  return undefined;
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length += 1;
  return `${length}${body}`;
}

function ustarHeader(name: { name: string; prefix: string }, size: number, type: string, mode: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  header.write(name.name, 0, NAME_MAX, 'utf8');
  header.write(octal(mode, 7), 100);
  header.write(octal(0, 7), 108);
  header.write(octal(0, 7), 116);
  header.write(octal(size, 11), 124);
  header.write(octal(Math.floor(Date.now() / 1000), 11), 136);
  header.write('        ', 148);
  header.write(type, 156);
  header.write('ustar\u000000', 257, 'latin1');
  header.write(name.prefix, 345, PREFIX_MAX, 'utf8');
  header.write(`${octal(checksum(header), 6)} `, 148, 'latin1');
  return header;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width, '0')}\u0000`;
}

function checksum(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return sum;
}

/** An archive that is not a tar stream this module wrote (or one cut short). */
export class CorruptArchiveError extends Error {}

/** One entry of an archive being read: a directory, or a regular file whose bytes must be consumed with `pipeTo` or `read` before the next entry. */
export interface TarEntry {
  name: string;
  type: 'file' | 'directory';
  size: number;
  /** Writes the file's bytes to `target` (created 0600, must not exist); returns their digest. */
  pipeTo(target: string): Promise<EntryDigest>;
  /** The file's bytes, for small entries. */
  read(): Promise<Buffer>;
}

/** Reads the entries of a tar stream in order; refuses links, devices and anything else that is not a file or a directory. */
export async function* readTar(input: Readable): AsyncGenerator<TarEntry> {
  const bytes = new ByteReader(input);
  let paxPath: string | undefined;
  let paxSize: number | undefined;
  for (;;) {
    const header = await bytes.take(BLOCK);
    if (!header) throw new CorruptArchiveError('the archive ends before its end marker');
    if (header.every((b) => b === 0)) return;
    const stored = parseInt(field(header, 148, 8).trim() || 'x', 8);
    if (stored !== checksum(header)) throw new CorruptArchiveError('a tar header has a wrong checksum');
    const type = String.fromCharCode(header[156]!);
    const prefix = field(header, 345, PREFIX_MAX);
    const headerName = prefix ? `${prefix}/${field(header, 0, NAME_MAX)}` : field(header, 0, NAME_MAX);
    const headerSize = parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(headerSize) || headerSize < 0) throw new CorruptArchiveError('a tar header has a bad size');
    if (type === 'x') {
      const body = (await bytes.take(padded(headerSize)))?.subarray(0, headerSize);
      if (!body) throw new CorruptArchiveError('the archive ends inside a pax header');
      for (const [key, value] of parsePax(body)) {
        if (key === 'path') paxPath = value;
        if (key === 'size') paxSize = Number(value);
      }
      continue;
    }
    const name = paxPath ?? headerName;
    const size = paxSize ?? headerSize;
    paxPath = undefined;
    paxSize = undefined;
    if (type === '5') {
      yield { name: name.replace(/\/$/, ''), type: 'directory', size: 0, pipeTo: notAFile, read: notAFile };
      continue;
    }
    if (type !== '0' && type !== '\u0000') throw new CorruptArchiveError(`${name} is neither a file nor a directory`);
    let consumed = false;
    const consume = async (sink: (piece: Buffer) => Promise<void> | void): Promise<EntryDigest> => {
      if (consumed) throw new Error(`${name} was read already`);
      consumed = true;
      const hash = createHash('sha256');
      let left = size;
      while (left > 0) {
        const piece = await bytes.takeUpTo(left);
        if (!piece) throw new CorruptArchiveError(`the archive ends inside ${name}`);
        hash.update(piece);
        await sink(piece);
        left -= piece.length;
      }
      if (!(await bytes.take(padded(size) - size))) throw new CorruptArchiveError(`the archive ends inside ${name}`);
      return { size, sha256: hash.digest('hex') };
    };
    const entry: TarEntry = {
      name,
      type: 'file',
      size,
      async pipeTo(target) {
        const handle = await fs.promises.open(target, 'wx', 0o600);
        try {
          const digest = await consume(async (piece) => {
            await handle.write(piece);
          });
          await handle.sync();
          return digest;
        } finally {
          await handle.close();
        }
      },
      async read() {
        const pieces: Buffer[] = [];
        await consume((piece) => void pieces.push(piece));
        return Buffer.concat(pieces);
      },
    };
    yield entry;
    if (!consumed) await entry.read();
  }
}

function notAFile(): never {
  throw new Error('a directory has no contents');
}

function padded(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

function parsePax(body: Buffer): [string, string][] {
  const records: [string, string][] = [];
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const length = Number(body.subarray(at, space).toString('latin1'));
    if (space < 0 || !Number.isSafeInteger(length) || length <= 0 || at + length > body.length) {
      throw new CorruptArchiveError('a pax header is malformed');
    }
    const record = body.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) records.push([record.slice(0, eq), record.slice(eq + 1)]);
    at += length;
  }
  return records;
}

/** Exact-length reads over a stream's chunks. */
class ByteReader {
  private readonly chunks: AsyncIterator<Buffer>;
  private pending: Buffer = Buffer.alloc(0);

  constructor(input: Readable) {
    this.chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** Exactly `n` bytes, or undefined when the stream ends first. */
  async take(n: number): Promise<Buffer | undefined> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < n) {
      const piece = await this.takeUpTo(n - got);
      if (!piece) return undefined;
      parts.push(piece);
      got += piece.length;
    }
    return Buffer.concat(parts, n);
  }

  /** Between 1 and `n` bytes, or undefined at the end of the stream. */
  async takeUpTo(n: number): Promise<Buffer | undefined> {
    if (this.pending.length === 0) {
      const next = await this.chunks.next();
      if (next.done) return undefined;
      this.pending = next.value;
      if (this.pending.length === 0) return this.takeUpTo(n);
    }
    const piece = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(piece.length);
    return piece;
  }
}
