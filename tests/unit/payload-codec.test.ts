// The AES-256-GCM payload codec and its keys from the environment: round trips, rotation, unknown keys, tampering.
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { loadEnv } from '../../config/env';
import { bridgeEnvironment, workerEnvironment } from '../../devkit/production-env';
import { parseCodecKeys, payloadCodecFromEnv } from '../../config/codec-keys';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadDecryptionError,
} from '../../config/payload-codec';

const key = (id: string) => ({ id, key: randomBytes(32) });
const payloadOf = (value: unknown) => defaultPayloadConverter.toPayload(value) as Payload;
const valueOf = (payload: Payload) => defaultPayloadConverter.fromPayload(payload);
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

describe('AesGcmPayloadCodec', () => {
  it('encrypts every payload under the current key id and decodes it back to the same value', async () => {
    const codec = new AesGcmPayloadCodec([key('k1')]);
    const secret = { prompt: 'the launch code is 0000', n: 42 };
    const [encoded] = await codec.encode([payloadOf(secret)]);
    expect(text(encoded.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encoded.metadata?.[KEY_ID_METADATA])).toBe('k1');
    expect(text(encoded.data)).not.toContain('launch code');
    const [decoded] = await codec.decode([encoded]);
    expect(valueOf(decoded)).toEqual(secret);
  });

  it('uses a fresh IV each time: the same value never encrypts to the same bytes', async () => {
    const codec = new AesGcmPayloadCodec([key('k1')]);
    const [a, b] = await codec.encode([payloadOf('same'), payloadOf('same')]);
    expect(Buffer.from(a.data ?? []).equals(Buffer.from(b.data ?? []))).toBe(false);
  });

  it('still decrypts what an old key encrypted after a new current key is added, and encrypts with the new one', async () => {
    const old = key('2026-01');
    const [before] = await new AesGcmPayloadCodec([old]).encode([payloadOf('written last year')]);
    const rotated = new AesGcmPayloadCodec([key('2026-11'), old]);
    expect(valueOf((await rotated.decode([before]))[0])).toBe('written last year');
    const [after] = await rotated.encode([payloadOf('written now')]);
    expect(text(after.metadata?.[KEY_ID_METADATA])).toBe('2026-11');
  });

  it('refuses a payload whose key is not configured, naming the key', async () => {
    const [encoded] = await new AesGcmPayloadCodec([key('gone')]).encode([payloadOf('x')]);
    const other = new AesGcmPayloadCodec([key('k1')]);
    await expect(other.decode([encoded])).rejects.toThrow(PayloadDecryptionError);
    await expect(other.decode([encoded])).rejects.toThrow(/key "gone", which is not configured/);
  });

  it('refuses altered ciphertext, a swapped key id and a truncated payload', async () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const codec = new AesGcmPayloadCodec([k1, k2]);
    const [encoded] = await codec.encode([payloadOf('do not touch')]);
    const flipped = Buffer.from(encoded.data ?? []);
    flipped[20] ^= 1;
    await expect(codec.decode([{ ...encoded, data: flipped }])).rejects.toThrow(/failed authentication/);
    const swapped = { ...encoded, metadata: { ...encoded.metadata, [KEY_ID_METADATA]: Buffer.from('k2') } };
    await expect(codec.decode([swapped])).rejects.toThrow(/failed authentication/);
    await expect(codec.decode([{ ...encoded, data: flipped.subarray(0, 10) }])).rejects.toThrow(/truncated/);
  });

  it('passes payloads that are not encrypted through decode (histories from before the codec)', async () => {
    const plain = payloadOf({ old: true });
    expect(valueOf((await new AesGcmPayloadCodec([key('k1')]).decode([plain]))[0])).toEqual({ old: true });
  });

  it('refuses bad keys at construction', () => {
    expect(() => new AesGcmPayloadCodec([])).toThrow(/at least one key/);
    expect(() => new AesGcmPayloadCodec([{ id: 'k', key: randomBytes(16) }])).toThrow(/AES-256 takes 32/);
    expect(() => new AesGcmPayloadCodec([key('k'), key('k')])).toThrow(/twice/);
    expect(() => new AesGcmPayloadCodec([key('k')], 'other')).toThrow(/not among the keys/);
  });
});

describe('payloadCodecFromEnv', () => {
  const b64 = () => randomBytes(32).toString('base64');

  it('is off when AGIO_CODEC_KEYS is unset', () => {
    expect(payloadCodecFromEnv(loadEnv({}))).toBeUndefined();
  });

  it('takes the first key as current unless AGIO_CODEC_KEY_ID names another', () => {
    const keys = `new:${b64()}, old:${b64()}`;
    expect(payloadCodecFromEnv(loadEnv({ AGIO_CODEC_KEYS: keys }))?.currentKeyId).toBe('new');
    const codec = payloadCodecFromEnv(loadEnv({ AGIO_CODEC_KEYS: keys, AGIO_CODEC_KEY_ID: 'old' }));
    expect(codec?.currentKeyId).toBe('old');
    expect(codec?.keyIds()).toEqual(['new', 'old']);
  });

  it('reads standard and URL-safe base64 and refuses keys of the wrong size or shape', () => {
    const bytes = randomBytes(32);
    expect(parseCodecKeys(`a:${bytes.toString('base64url')}`)[0].key).toEqual(bytes);
    expect(() => parseCodecKeys(`a:${randomBytes(16).toString('base64')}`)).toThrow(/16 bytes; AES-256 takes 32/);
    expect(() => parseCodecKeys('justakey')).toThrow(/id:base64key/);
    expect(() => parseCodecKeys('a:not base64!')).toThrow(/not base64/);
    expect(() => payloadCodecFromEnv(loadEnv({ AGIO_CODEC_KEY_ID: 'a' }))).toThrow(/AGIO_CODEC_KEYS is not/);
  });

  it('reaches every worker and bridge of the production shape when given', () => {
    const e = { temporalAddress: 't', namespace: 'n', taskQueue: 'q', mongoUri: 'm', natsUrl: 'n', codecKeys: 'k:x' };
    expect(workerEnvironment(e, { dataDir: 'd', model: { baseURL: 'b' } }).AGIO_CODEC_KEYS).toBe('k:x');
    expect(bridgeEnvironment(e, { port: 1, tokens: 't', streamTokenSecret: 's' }).AGIO_CODEC_KEYS).toBe('k:x');
    expect(
      workerEnvironment({ ...e, codecKeys: undefined }, { dataDir: 'd', model: { baseURL: 'b' } }),
    ).not.toHaveProperty('AGIO_CODEC_KEYS');
  });
});
