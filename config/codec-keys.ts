// The payload codec every process builds from its environment (AGIO_CODEC_KEYS, AGIO_CODEC_KEY_ID): workers, bridges,
// `agio serve` and the CLI commands that read or write payloads all need the same keys, so they all start here.
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import type { AgioEnv } from './env';
import { AesGcmPayloadCodec, type CodecKey } from './payload-codec';

/** The variables that configure the codec. */
type CodecEnv = Pick<AgioEnv, 'AGIO_CODEC_KEYS' | 'AGIO_CODEC_KEY_ID'>;

/** Parses `id1:base64key,id2:base64key` (AGIO_CODEC_KEYS): each key is 32 bytes in standard or URL-safe base64. */
export function parseCodecKeys(spec: string): CodecKey[] {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      const id = colon > 0 ? entry.slice(0, colon) : '';
      const encoded = colon > 0 ? entry.slice(colon + 1).trim() : '';
      if (!id || !encoded) throw new Error(`AGIO_CODEC_KEYS entry "${id || '…'}:…" must look like id:base64key`);
      if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) throw new Error(`AGIO_CODEC_KEYS key "${id}" is not base64`);
      const key = Buffer.from(encoded, encoded.includes('-') || encoded.includes('_') ? 'base64url' : 'base64');
      if (key.length !== 32)
        throw new Error(
          `AGIO_CODEC_KEYS key "${id}" is ${key.length} bytes; AES-256 takes 32 (make one with: openssl rand -base64 32)`,
        );
      return { id, key };
    });
}

/**
 * The codec the environment asks for, or undefined when AGIO_CODEC_KEYS is unset (payloads then go to Temporal as
 * plain JSON). The current key is AGIO_CODEC_KEY_ID, else the first one listed.
 */
export function payloadCodecFromEnv(env: CodecEnv): AesGcmPayloadCodec | undefined {
  if (!env.AGIO_CODEC_KEYS) {
    if (env.AGIO_CODEC_KEY_ID) throw new Error('AGIO_CODEC_KEY_ID is set but AGIO_CODEC_KEYS is not');
    return undefined;
  }
  const keys = parseCodecKeys(env.AGIO_CODEC_KEYS);
  if (!keys.length) throw new Error('AGIO_CODEC_KEYS holds no key');
  return new AesGcmPayloadCodec(keys, env.AGIO_CODEC_KEY_ID ?? keys[0].id);
}

/** A Client's or Worker's `dataConverter` option for a codec (none without one): spread it into their options. */
export function dataConverterOption(codec: PayloadCodec | undefined): { dataConverter?: DataConverter } {
  return codec ? { dataConverter: { payloadCodecs: [codec] } } : {};
}
