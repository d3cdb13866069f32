// The `web_search_api` tool: web search through a Serper-compatible API (POST { q, num }, X-API-KEY header).
import { z } from 'zod';
import { defineTool } from './define-tool';
import { httpErrorOutput } from './web-http';

const DEFAULT_ENDPOINT = 'https://google.serper.dev/search';
const DEFAULT_NUM = 10;

/** Where and how `web_search_api` searches; unset fields are read from the environment at call time. */
export interface WebSearchConfig {
  /** Serper-compatible search URL (default: $SERPER_API_URL, else https://google.serper.dev/search). */
  endpoint?: string;
  /** API key sent as `X-API-KEY` (default: $SERPER_API_KEY). */
  apiKey?: string;
  /** fetch to use (default: the global fetch). */
  fetchImpl?: typeof fetch;
}

/** One search hit, as returned in `metadata.sources`. */
export interface SearchSource {
  url: string;
  title: string;
  snippet: string;
}

const serperResponse = z.looseObject({
  answerBox: z.looseObject({ answer: z.string().optional(), snippet: z.string().optional() }).optional(),
  organic: z
    .array(z.looseObject({ title: z.string().optional(), link: z.string(), snippet: z.string().optional() }))
    .optional(),
});

function format(query: string, answer: string | undefined, sources: SearchSource[]): string {
  if (sources.length === 0 && !answer) return `No results for "${query}".`;
  const lines = [`Search results for "${query}":`];
  if (answer) lines.push('', `Answer: ${answer}`);
  sources.forEach((s, i) =>
    lines.push('', `${i + 1}. ${s.title || '(untitled)'}`, `   ${s.url}`, ...(s.snippet ? [`   ${s.snippet}`] : [])),
  );
  return lines.join('\n');
}

/** Builds a `web_search_api` tool bound to a Serper-compatible endpoint and key. */
export function createWebSearchTool(config: WebSearchConfig = {}) {
  return defineTool({
    name: 'web_search_api',
    description:
      'Search the web. Returns a numbered list of results, each with title, URL and snippet; use web_reader_api to read a page.',
    parameters: z.object({
      query: z.string().min(1).describe('The search query.'),
      num: z.number().int().min(1).max(20).optional().describe(`Number of results to return (default ${DEFAULT_NUM}).`),
    }),
    idempotent: true,
    workspace: 'none',
    async execute({ query, num = DEFAULT_NUM }, ctx) {
      const endpoint = config.endpoint ?? (process.env.SERPER_API_URL || DEFAULT_ENDPOINT);
      const apiKey = config.apiKey ?? process.env.SERPER_API_KEY;
      if (!apiKey) throw new Error('web_search_api is not configured: set SERPER_API_KEY on the worker.');
      const fetchImpl = config.fetchImpl ?? fetch;
      const res = await fetchImpl(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-KEY': apiKey },
        body: JSON.stringify({ q: query, num }),
        signal: ctx.signal,
      });
      if (!res.ok) return httpErrorOutput('The search API', res);
      const parsed = serperResponse.safeParse(await res.json().catch(() => undefined));
      if (!parsed.success) throw new Error('The search API returned a response that is not Serper-shaped JSON.');
      const sources: SearchSource[] = (parsed.data.organic ?? [])
        .slice(0, num)
        .map((r) => ({ url: r.link, title: r.title ?? '', snippet: r.snippet ?? '' }));
      const answer = parsed.data.answerBox?.answer ?? parsed.data.answerBox?.snippet;
      return { content: format(query, answer, sources), metadata: { sources } };
    },
  });
}

/** The default `web_search_api`, configured from SERPER_API_URL / SERPER_API_KEY when called. */
export const webSearchTool = createWebSearchTool();
