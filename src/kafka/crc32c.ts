/**
 * CRC-32C (Castagnoli), the checksum of a Kafka record batch, eight bytes a step ("slicing by
 * eight"): kafkajs' own takes a table look-up per byte, and was the largest cost of encoding a
 * produce request once the rest was one pass (issue 21). Same value as kafkajs' for any bytes.
 */
const REFLECTED_POLYNOMIAL = 0x82f63b78;

/** TABLES[k * 256 + b]: the CRC of byte b followed by k zero bytes. */
const TABLES = buildTables();

function buildTables(): Int32Array {
  const tables = new Int32Array(8 * 256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 1 ? (crc >>> 1) ^ REFLECTED_POLYNOMIAL : crc >>> 1;
    tables[byte] = crc;
  }
  for (let byte = 0; byte < 256; byte++) {
    let crc = tables[byte] as number;
    for (let k = 1; k < 8; k++) {
      crc = (tables[crc & 0xff] as number) ^ (crc >>> 8);
      tables[k * 256 + byte] = crc;
    }
  }
  return tables;
}

/** The CRC-32C of the bytes, as an unsigned 32-bit number. */
export function crc32c(bytes: Uint8Array): number {
  const t = TABLES;
  let crc = -1;
  let i = 0;
  const whole = bytes.length - (bytes.length % 8);
  for (; i < whole; i += 8) {
    const low =
      crc ^
      ((bytes[i] as number) |
        ((bytes[i + 1] as number) << 8) |
        ((bytes[i + 2] as number) << 16) |
        ((bytes[i + 3] as number) << 24));
    crc =
      (t[1792 + (low & 0xff)] as number) ^
      (t[1536 + ((low >>> 8) & 0xff)] as number) ^
      (t[1280 + ((low >>> 16) & 0xff)] as number) ^
      (t[1024 + (low >>> 24)] as number) ^
      (t[768 + (bytes[i + 4] as number)] as number) ^
      (t[512 + (bytes[i + 5] as number)] as number) ^
      (t[256 + (bytes[i + 6] as number)] as number) ^
      (t[bytes[i + 7] as number] as number);
  }
  for (; i < bytes.length; i++)
    crc = (t[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
