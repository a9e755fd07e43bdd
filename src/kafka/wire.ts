/** Kafka's protocol primitives (big-endian, int16-sized strings, int32-sized bytes), both ways. */

export class Reader {
  #at = 0;
  readonly #buffer: Buffer;

  constructor(buffer: Buffer) {
    this.#buffer = buffer;
  }

  int16(): number {
    const value = this.#buffer.readInt16BE(this.#at);
    this.#at += 2;
    return value;
  }

  int32(): number {
    const value = this.#buffer.readInt32BE(this.#at);
    this.#at += 4;
    return value;
  }

  int64(): bigint {
    const value = this.#buffer.readBigInt64BE(this.#at);
    this.#at += 8;
    return value;
  }

  string(): string {
    return this.nullableString() ?? '';
  }

  nullableString(): string | undefined {
    const length = this.int16();
    if (length < 0) return undefined;
    const value = this.#buffer.toString('utf8', this.#at, this.#at + length);
    this.#at += length;
    return value;
  }

  /** Bytes (int32 size), as a view of the buffer; empty for null. */
  blob(): Buffer {
    const length = this.int32();
    const value = this.#buffer.subarray(this.#at, this.#at + Math.max(0, length));
    this.#at += Math.max(0, length);
    return value;
  }
}

export class Writer {
  readonly #parts: Buffer[] = [];

  int8(value: number): this {
    return this.#put(1, (b) => b.writeInt8(value));
  }

  int16(value: number): this {
    return this.#put(2, (b) => b.writeInt16BE(value));
  }

  int32(value: number): this {
    return this.#put(4, (b) => b.writeInt32BE(value));
  }

  int64(value: bigint): this {
    return this.#put(8, (b) => b.writeBigInt64BE(value));
  }

  string(value: string): this {
    const bytes = Buffer.from(value);
    this.int16(bytes.length);
    this.#parts.push(bytes);
    return this;
  }

  blob(value: Buffer): this {
    this.int32(value.length);
    this.#parts.push(value);
    return this;
  }

  /** An array: its length, then each item as `write` puts it. */
  array<T>(items: readonly T[], write: (writer: this, item: T) => void): this {
    this.int32(items.length);
    for (const item of items) write(this, item);
    return this;
  }

  bytes(): Buffer {
    return Buffer.concat(this.#parts);
  }

  #put(size: number, write: (buffer: Buffer) => void): this {
    const buffer = Buffer.alloc(size);
    write(buffer);
    this.#parts.push(buffer);
    return this;
  }
}
