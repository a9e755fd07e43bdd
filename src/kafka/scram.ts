/**
 * The client's side of SCRAM (RFC 5802, SHA-256 and SHA-512 as Kafka offers them, RFC 7677), for
 * the broker connections of partition-scan.ts: the first message, the proof from the server's
 * first, and the check of the server's signature in its last. Pure; no channel binding (`n,,`).
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

export type ScramHash = 'sha256' | 'sha512';

const KEY_BYTES: Record<ScramHash, number> = { sha256: 32, sha512: 64 };
const GS2_HEADER = 'n,,';

export interface ScramClient {
  readonly first: string;
  /** The client's final message, from the server's first; throws when that is not one. */
  final(serverFirst: string): string;
  /** Throws unless the server's final message proves it knows the password too. */
  verify(serverFinal: string): void;
}

export function scramClient(
  hash: ScramHash,
  username: string,
  password: string,
  nonce: string = randomBytes(24).toString('base64url'),
): ScramClient {
  const bare = `n=${saslName(username)},r=${nonce}`;
  let serverSignature: Buffer | undefined;
  return {
    first: `${GS2_HEADER}${bare}`,
    final(serverFirst) {
      const fields = attributes(serverFirst);
      const combined = fields.get('r') ?? '';
      const salt = Buffer.from(fields.get('s') ?? '', 'base64');
      const iterations = Number(fields.get('i'));
      if (!combined.startsWith(nonce) || salt.length === 0 || !(iterations > 0)) {
        throw new Error(
          `SCRAM: the server's first message is not one (${fields.get('e') ?? 'fields missing'})`,
        );
      }
      const salted = pbkdf2Sync(password, salt, iterations, KEY_BYTES[hash], hash);
      const clientKey = hmac(hash, salted, 'Client Key');
      const storedKey = createHash(hash).update(clientKey).digest();
      const withoutProof = `c=${Buffer.from(GS2_HEADER).toString('base64')},r=${combined}`;
      const authMessage = `${bare},${serverFirst},${withoutProof}`;
      const signature = hmac(hash, storedKey, authMessage);
      const proof = Buffer.from(clientKey.map((byte, i) => byte ^ (signature[i] as number)));
      serverSignature = hmac(hash, hmac(hash, salted, 'Server Key'), authMessage);
      return `${withoutProof},p=${proof.toString('base64')}`;
    },
    verify(serverFinal) {
      const fields = attributes(serverFinal);
      const error = fields.get('e');
      if (error !== undefined) throw new Error(`SCRAM: the server refused: ${error}`);
      const given = Buffer.from(fields.get('v') ?? '', 'base64');
      if (!serverSignature || !given.equals(serverSignature)) {
        throw new Error(
          "SCRAM: the server's signature does not match: it does not know the password",
        );
      }
    },
  };
}

/** `=` and `,` escaped as RFC 5802 asks. */
function saslName(name: string): string {
  return name.replaceAll('=', '=3D').replaceAll(',', '=2C');
}

function attributes(message: string): Map<string, string> {
  return new Map(
    message.split(',').map((part) => [part.slice(0, 1), part.slice(2)] as [string, string]),
  );
}

function hmac(hash: ScramHash, key: Buffer, text: string): Buffer {
  return createHmac(hash, key).update(text).digest();
}
