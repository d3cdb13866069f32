// The payload codecs a client encodes and decodes with (AGIO_CODEC_KEYS), applied as the SDK applies them: what a
// codec server (the bridge's /codec endpoint) answers the Temporal Web UI and CLI with.
import type { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** Temporal's payload (metadata and data as bytes). */
export type { Payload } from '@temporalio/common';

/** A client's codecs over payloads of its own namespace. */
export interface PayloadCodecs {
  /** The namespace whose payloads these codecs are for. */
  namespace: string;
  encode(payloads: Payload[]): Promise<Payload[]>;
  decode(payloads: Payload[]): Promise<Payload[]>;
}

/** The client's codecs (undefined when it has none), in order on encode and in reverse on decode. */
export function payloadCodecsOf(client: Client): PayloadCodecs | undefined {
  const codecs = client.workflow.options.loadedDataConverter.payloadCodecs;
  if (!codecs.length) return undefined;
  return {
    namespace: client.options.namespace,
    encode: (payloads) => apply(codecs, 'encode', payloads),
    decode: (payloads) => apply(codecs, 'decode', payloads),
  };
}

async function apply(codecs: PayloadCodec[], op: 'encode' | 'decode', payloads: Payload[]): Promise<Payload[]> {
  let out = payloads;
  for (const codec of op === 'encode' ? codecs : [...codecs].reverse()) out = await codec[op](out);
  return out;
}
