// What the model sees of an MCP tool result: its text parts (and embedded text resources) joined, every other part
// summarised by type and size,
// `isError` as an error result, and structured content kept in the step's metadata.
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutput } from '../define-tool';

/** Converts a tools/call result (or a pre-2024-11 `toolResult`) into a tool output. */
export function toolOutputOf(result: CallToolResult | { toolResult: unknown }): ToolOutput {
  if (!('content' in result)) return { content: JSON.stringify(result.toolResult ?? null) };
  const content = (result.content ?? []).map(describePart).join('\n');
  const metadata = result.structuredContent === undefined ? undefined : { structuredContent: result.structuredContent };
  if (!result.isError) return { content, ...(metadata ? { metadata } : {}) };
  const message = /^error\b/i.test(content) ? content : `Error: ${content || 'the tool reported an error'}`;
  return { content: message, isError: true, ...(metadata ? { metadata } : {}) };
}

/** One part of a result as text: text itself, anything else as a bracketed summary. */
export function describePart(part: ContentBlock): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type}: ${part.mimeType}, ${base64Bytes(part.data)} bytes]`;
    case 'resource_link': {
      const name = part.name && part.name !== part.uri ? ` "${part.name}"` : '';
      return `[resource link: ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ''}${name}]`;
    }
    case 'resource': {
      // An embedded text resource (a file's contents, say) is what the model asked for: its text follows its header.
      // Output caps apply to the whole result as to any tool's.
      const r = part.resource;
      const header = `[resource: ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}`;
      return 'text' in r ? `${header}]\n${r.text}` : `${header}, ${base64Bytes(r.blob)} bytes]`;
    }
    default:
      return `[${(part as { type?: string }).type ?? 'unknown'} part]`;
  }
}

/** Decoded size of base64 text. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}
