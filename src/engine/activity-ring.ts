import type { ActivityEntry } from './activity.js';

/*
 * One sandbox's recent requests, packed into a single ArrayBuffer: a ring of slots (`at` as a
 * f64, then two u32: the duration in hundredths of a ms, and status | path length | method code)
 * followed by a ring of the paths' UTF-8 bytes, without the `/api/v1` prefix nearly every path
 * has. As JS objects an entry cost about 200 bytes (mostly its path, a slice that keeps the whole
 * request URL alive); packed it costs 16 bytes plus its path. Both rings start small and double up
 * to their bound, so a sandbox that asked twice holds a few hundred bytes.
 */

/** Bytes of a slot: `at` (8), duration (4), status | length | method (4). */
const slotBytes = 16;
/** The packed u32: status in bits 0-9 (HTTP statuses are 100-999), path length in 10-20, method code in 21-28. */
const lengthShift = 10;
const codeShift = 21;
const statusMask = 0x3ff;
const lengthMask = 0x7ff;

/** Path bytes a full ring keeps per entry on average; a ring of long paths keeps fewer entries. */
const pathBytesPerEntry = 32;
/** A path is cut to this many bytes (fits the 11 bits above), and a ring's path bytes are never fewer. */
const maxPathBytes = 1024;
const firstSlots = 4;

const apiPrefix = '/api/v1';
/** Set in the method code when the stored path had the prefix above. */
const prefixed = 0x80;
/**
 * Method codes (7 bits). Node's HTTP parser accepts only the methods it knows (about 35), so the
 * table stays small; past 127 a method would be logged as the last code's name.
 */
const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const otherCodes = new Map<string, number>();

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Where a path is encoded before it is copied into a ring (and gathered when it wraps). */
const scratch = new Uint8Array(maxPathBytes);

function methodCode(method: string): number {
  switch (method) {
    case 'GET':
      return 0;
    case 'POST':
      return 1;
    case 'PUT':
      return 2;
    case 'PATCH':
      return 3;
    case 'DELETE':
      return 4;
    case 'HEAD':
      return 5;
    case 'OPTIONS':
      return 6;
  }
  let code = otherCodes.get(method);
  if (code === undefined) {
    code = Math.min(methods.length, prefixed - 1);
    if (code === methods.length) {
      methods.push(method);
      otherCodes.set(method, code);
    }
  }
  return code;
}

/** Encodes `path` from `start` into `scratch`; returns the byte count (cut at `maxPathBytes`, on a character boundary). */
function encodePath(path: string, start: number): number {
  let length = 0;
  for (let i = start; i < path.length; i++) {
    const char = path.charCodeAt(i);
    if (char >= 0x80) return length + encoder.encodeInto(path.slice(i), scratch.subarray(length)).written;
    if (length === maxPathBytes) break;
    scratch[length++] = char;
  }
  return length;
}

/** The entries a ring of `limit` keeps may hold this many path bytes. */
function pathBudget(limit: number): number {
  return Math.max(limit * pathBytesPerEntry, maxPathBytes);
}

export class ActivityRing {
  private at!: Float64Array;
  /** Two u32 a slot: the duration, then status | length | code. */
  private info!: Uint32Array;
  private paths!: Uint8Array;
  /** Index of the oldest slot, and how many slots are in use. */
  private head = 0;
  private count = 0;
  /** Offset of the oldest entry's path in `paths`, and the path bytes in use. */
  private pathHead = 0;
  private pathUsed = 0;
  private slots = 0;
  private pathSize = 0;

  /** `limit`: the most entries kept (`limits.activity`, at least 1) when the ring was last sized. */
  constructor(public limit: number) {
    const slots = Math.min(limit, firstSlots);
    this.allocate(slots, Math.min(slots * pathBytesPerEntry * 2, pathBudget(limit)));
  }

  /** Adds the newest entry, dropping the oldest ones it needs room from. */
  push(method: string, path: string, status: number, durationMs: number, at: number): void {
    const start = path.startsWith(apiPrefix) && (path.length === apiPrefix.length || path.charCodeAt(apiPrefix.length) === 0x2f) ? apiPrefix.length : 0;
    // Paths are percent-encoded ASCII but for the cut mark: copied straight in, encoded otherwise.
    let length = path.length - start;
    if (length > maxPathBytes || !(this.makeRoom(length), this.writeAscii(path, start, length))) {
      length = encodePath(path, start);
      this.makeRoom(length);
      this.writeScratch(length);
    }
    this.pathUsed += length;

    let slot = this.head + this.count;
    if (slot >= this.slots) slot -= this.slots;
    this.at[slot] = at;
    this.info[2 * slot] = Math.min(Math.max(Math.round(durationMs * 100), 0), 0xffff_ffff);
    this.info[2 * slot + 1] = (status & statusMask) | (length << lengthShift) | ((methodCode(method) | (start ? prefixed : 0)) << codeShift);
    this.count++;
  }

  /** The newest `max` entries, newest first. */
  recent(max: number): ActivityEntry[] {
    const entries: ActivityEntry[] = [];
    const skip = Math.max(this.count - max, 0);
    let offset = this.pathHead;
    for (let i = 0; i < this.count; i++) {
      const slot = (this.head + i) % this.slots;
      const packed = this.info[2 * slot + 1]!;
      const length = (packed >>> lengthShift) & lengthMask;
      if (i >= skip) {
        for (let b = 0; b < length; b++) scratch[b] = this.paths[(offset + b) % this.pathSize]!;
        const path = decoder.decode(scratch.subarray(0, length));
        const code = packed >>> codeShift;
        entries.push({
          method: methods[code & ~prefixed]!,
          path: code & prefixed ? apiPrefix + path : path,
          status: packed & statusMask,
          durationMs: this.info[2 * slot]! / 100,
          at: this.at[slot]!,
        });
      }
      offset = (offset + length) % this.pathSize;
    }
    return entries.reverse();
  }

  /** Keeps the newest entries of at most `limit` (a config reload changed `limits.activity`). */
  relimit(limit: number): void {
    this.limit = limit;
    this.resize(Math.min(this.slots, limit), Math.min(this.pathSize, pathBudget(limit)));
  }

  /** Grows the rings or drops the oldest entries until one more entry with a path of `length` bytes fits. */
  private makeRoom(length: number): void {
    if (this.count === this.slots && this.slots < this.limit) this.resize(Math.min(this.slots * 2, this.limit), this.pathSize);
    const budget = pathBudget(this.limit);
    if (this.pathUsed + length > this.pathSize && this.pathSize < budget) {
      let size = this.pathSize * 2;
      while (size < this.pathUsed + length) size *= 2;
      this.resize(this.slots, Math.min(size, budget));
    }
    while (this.count === this.slots || this.pathUsed + length > this.pathSize) this.dropOldest();
  }

  /** Where the next path's bytes go. */
  private pathEnd(): number {
    const end = this.pathHead + this.pathUsed;
    return end >= this.pathSize ? end - this.pathSize : end;
  }

  /** Copies `path` from `start` as bytes; false (nothing counted yet) at its first non-ASCII character. */
  private writeAscii(path: string, start: number, length: number): boolean {
    const paths = this.paths;
    let write = this.pathEnd();
    for (let i = start; i < start + length; i++) {
      const char = path.charCodeAt(i);
      if (char >= 0x80) return false;
      paths[write] = char;
      if (++write === this.pathSize) write = 0;
    }
    return true;
  }

  private writeScratch(length: number): void {
    const paths = this.paths;
    let write = this.pathEnd();
    for (let i = 0; i < length; i++) {
      paths[write] = scratch[i]!;
      if (++write === this.pathSize) write = 0;
    }
  }

  private lengthAt(slot: number): number {
    return (this.info[2 * slot + 1]! >>> lengthShift) & lengthMask;
  }

  private dropOldest(): void {
    const length = this.lengthAt(this.head);
    this.pathHead += length;
    if (this.pathHead >= this.pathSize) this.pathHead -= this.pathSize;
    this.pathUsed -= length;
    this.head = this.head + 1 === this.slots ? 0 : this.head + 1;
    this.count--;
  }

  private allocate(slots: number, pathSize: number): void {
    const buffer = new ArrayBuffer(slots * slotBytes + pathSize);
    this.at = new Float64Array(buffer, 0, slots);
    this.info = new Uint32Array(buffer, slots * 8, slots * 2);
    this.paths = new Uint8Array(buffer, slots * slotBytes, pathSize);
    this.slots = slots;
    this.pathSize = pathSize;
  }

  /** Moves the entries into rings of the given sizes, oldest first from 0, keeping the newest that fit. */
  private resize(slots: number, pathSize: number): void {
    while (this.count > slots || this.pathUsed > pathSize) this.dropOldest();
    const { at, info, paths, head, count, pathHead } = this;
    const oldSlots = this.slots;
    const oldPathSize = this.pathSize;
    this.allocate(slots, pathSize);
    for (let i = 0; i < count; i++) {
      const from = (head + i) % oldSlots;
      this.at[i] = at[from]!;
      this.info[2 * i] = info[2 * from]!;
      this.info[2 * i + 1] = info[2 * from + 1]!;
    }
    for (let b = 0; b < this.pathUsed; b++) this.paths[b] = paths[(pathHead + b) % oldPathSize]!;
    this.head = 0;
    this.pathHead = 0;
  }
}
