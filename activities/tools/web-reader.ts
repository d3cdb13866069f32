// The `web_reader_api` tool: fetches a web page as readable text through a Jina-Reader-compatible API
// (GET <endpoint>/<url>).
import { z } from 'zod';
import { defineTool } from './define-tool';
import { capText } from './output-buffer';
import { httpErrorOutput } from './web-http';

const DEFAULT_ENDPOINT = 'https://r.jina.ai';
const MAX_TEXT_BYTES = 64 * 1024;

/** Where and how `web_reader_api` reads pages; unset fields are read from the environment at call time. */
export interface WebReaderConfig {
  /** Jina-Reader-compatible base URL (default: $JINA_READER_URL, else https://r.jina.ai). */
  endpoint?: string;
  /** API key sent as `Authorization: Bearer …` (default: $JINA_API_KEY; optional). */
  apiKey?: string;
  /** fetch to use (default: the global fetch). */
  fetchImpl?: typeof fetch;
}

/** The page title from Jina Reader's `Title: …` header line, if present. */
function titleOf(text: string): string | undefined {
  const m = /^Title:[ \t]*(.+)$/m.exec(text.slice(0, 2000));
  return m ? m[1].trim() : undefined;
}

/** Builds a `web_reader_api` tool bound to a Jina-Reader-compatible endpoint. */
export function createWebReaderTool(config: WebReaderConfig = {}) {
  return defineTool({
    name: 'web_reader_api',
    description: `Read a web page (http or https URL) and return its main content as text/markdown (at most ${MAX_TEXT_BYTES / 1024} KB).`,
    parameters: z.object({
      url: z.string().min(1).describe('The http(s) URL of the page to read.'),
    }),
    idempotent: true,
    workspace: 'none',
    timeoutMs: 90_000,
    async execute({ url }, ctx) {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        throw new Error(`"${url}" is not a valid URL.`);
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new Error(`Only http and https URLs can be read, not ${target.protocol}`);
      const endpoint = (config.endpoint ?? (process.env.JINA_READER_URL || DEFAULT_ENDPOINT)).replace(/\/+$/, '');
      const apiKey = config.apiKey ?? process.env.JINA_API_KEY;
      const fetchImpl = config.fetchImpl ?? fetch;
      const headers: Record<string, string> = { Accept: 'text/plain' };
      if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
      const res = await fetchImpl(`${endpoint}/${target.href}`, { headers, signal: ctx.signal });
      if (!res.ok) return httpErrorOutput('The reader API', res);
      const body = await res.text();
      const title = titleOf(body);
      const { text, truncatedBytes } = capText(body, MAX_TEXT_BYTES);
      return {
        content: text.length > 0 ? text : `(the page at ${target.href} has no readable text)`,
        metadata: { sources: [{ url: target.href, ...(title ? { title } : {}) }], truncatedBytes },
      };
    },
  });
}

/** The default `web_reader_api`, configured from JINA_READER_URL / JINA_API_KEY when called. */
export const webReaderTool = createWebReaderTool();
