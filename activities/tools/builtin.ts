// The built-in tools every Agio worker registers: workspace file tools, bash, and the web tools.
import type { ToolDefinition } from './define-tool';
import { bashTool } from './bash';
import { fileEditTool } from './file-edit';
import { fileReadTool } from './file-read';
import { fileWriteTool } from './file-write';
import { globTool } from './glob';
import { grepTool } from './grep';
import { lsTool } from './ls';
import { webReaderTool } from './web-reader';
import { webSearchTool } from './web-search';

/** All built-in tools, in the order they are offered to the model. */
export const builtinTools: ToolDefinition[] = [
  fileReadTool,
  fileWriteTool,
  fileEditTool,
  lsTool,
  globTool,
  grepTool,
  bashTool,
  webSearchTool,
  webReaderTool,
];
