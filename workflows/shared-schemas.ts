// Loaded once per worker thread, before any workflow runs (the bundler's `preloadModules`, see
// worker/workflow-bundle-options.ts): zod's modules are evaluated here once and shared by every workflow execution.
// They keep no per-workflow state; the SDK freezes them once this module has run.
import { z } from 'zod';

// zod completes its global config (default locale, memoizer) when it builds its first schema and first container;
// that has to happen before the freeze, or every workflow's first schema would fail to write it. Building them here
// also keeps the import, which webpack would otherwise drop (zod's package declares no side effects).
z.object({ warm: z.string().min(1) }).safeParse({ warm: '' });
