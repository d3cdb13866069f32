// The payload codec that keeps prompts, tool outputs and results out of Temporal history in clear text: AES-256-GCM
// with key ids, so keys rotate (one current key encrypts, every configured key decrypts). It runs in the worker and
// the clients, outside the workflow sandbox, so Node's crypto is fine here (docs/ARCHITECTURE.md, "Layers").
import { METADATA_ENCODING_KEY, ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The `encoding` of an encrypted payload (the one Temporal's samples and codec servers use). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the key a payload was encrypted with; key ids are not secret. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** One AES-256 key and its id. */
export interface CodecKey {
  id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

/** A payload could not be decrypted: its key is not configured, or it was altered. */
export class PayloadDecryptionError extends ValueError {
  override name = 'PayloadDecryptionError';
}

/**
 * Encrypts every payload with the current key (AES-256-GCM, a fresh 12-byte IV each time; the data is IV, ciphertext,
 * tag) and decrypts with whichever configured key the payload names. Payloads that are not encrypted pass through
 * decode unchanged, so histories written before the codec was turned on still read.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keys: Map<string, Buffer>;
  /** The id of the key new payloads are encrypted with. */
  readonly currentKeyId: string;

  /** `keys`: every key that may have encrypted a payload; `currentKeyId` (default the first) encrypts. */
  constructor(keys: CodecKey[], currentKeyId = keys[0]?.id) {
    if (!keys.length) throw new Error('a payload codec needs at least one key');
    this.keys = new Map();
    for (const { id, key } of keys) {
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(id)) throw new Error(`codec key id "${id}": 1-64 letters, digits, . _ -`);
      if (key.length !== KEY_BYTES) throw new Error(`codec key "${id}" has ${key.length} bytes; AES-256 takes 32`);
      if (this.keys.has(id)) throw new Error(`codec key id "${id}" is given twice`);
      this.keys.set(id, Buffer.from(key));
    }
    if (!currentKeyId || !this.keys.has(currentKeyId))
      throw new Error(`the current codec key "${currentKeyId}" is not among the keys (${[...this.keys.keys()]})`);
    this.currentKeyId = currentKeyId;
  }

  /** The ids of every key this codec decrypts with. */
  keyIds(): string[] {
    return [...this.keys.keys()];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncrypted(payload) ? this.decrypt(payload) : payload));
  }

  private encrypt(payload: Payload): Payload {
    const key = this.keys.get(this.currentKeyId) as Buffer;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: Buffer.from(this.currentKeyId),
      },
      data,
    };
  }

  private decrypt(payload: Payload): Payload {
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    if (!idBytes) throw new PayloadDecryptionError(`an encrypted payload names no ${KEY_ID_METADATA}`);
    const keyId = Buffer.from(idBytes).toString('utf8');
    const key = this.keys.get(keyId);
    if (!key)
      throw new PayloadDecryptionError(
        `payload encrypted with key "${keyId}", which is not configured (AGIO_CODEC_KEYS has ${this.keyIds().join(', ')}): ` +
          'keep every key that encrypted a run until its history is gone',
      );
    const data = Buffer.from(payload.data ?? []);
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadDecryptionError('an encrypted payload is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadDecryptionError(`a payload encrypted with key "${keyId}" failed authentication: it was altered`);
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}

function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
  return !!encoding && Buffer.from(encoding).toString('utf8') === ENCRYPTED_ENCODING;
}
