// Shared by the web tools: turning a non-2xx HTTP response into an error result for the model.
import type { ToolOutput } from './define-tool';

const BODY_EXCERPT_CHARS = 500;

/** An `isError` result naming the service, the HTTP status and the start of the response body. */
export async function httpErrorOutput(service: string, res: Response): Promise<ToolOutput> {
  const body = await res.text().catch(() => '');
  const excerpt = body.length > BODY_EXCERPT_CHARS ? `${body.slice(0, BODY_EXCERPT_CHARS)}…` : body;
  return {
    content: `Error: ${service} returned HTTP ${res.status} ${res.statusText}${excerpt ? `: ${excerpt.trim()}` : ''}`,
    isError: true,
    metadata: { status: res.status },
  };
}
