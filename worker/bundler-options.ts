// How Agio's workflow bundle is built, for a worker that bundles workflows/ itself and for the prebuilt bundles of
// the tests and benchmarks alike.

/**
 * `common/` (the zod schemas of every contract, and zod itself) is loaded once per worker, into the reusable V8
 * context that every workflow execution shares, instead of once per workflow execution: building the schemas was
 * about 16% of the workflow thread's CPU in B2's profile. This is safe because `common/` keeps no state of its own:
 * its schemas and constants are never mutated, and nothing in it calls the workflow API at load time.
 */
export const AGIO_BUNDLER_OPTIONS = {
  preloadModules: [require.resolve('../common')],
};
