// Loads a package that Agio lists as an optional peer dependency (fastify, mongodb, NATS, the MCP SDK), so that a
// client-only install need not carry it; when it is missing, the error names the package and what needs it. Node-side
// only (stores, the live lane, activities, the bridge, the devkit): common/index does not export it, so workflow code
// never loads it. It sits in common/ because it imports nothing and every layer that loads a peer stands above it.

/** Thrown when a feature needs an optional peer dependency that is not installed. */
export class MissingPackageError extends Error {
  constructor(
    /** The package to install. */
    readonly packageName: string,
    neededFor: string,
    install: string[] = [packageName],
  ) {
    super(`${neededFor} needs the package "${packageName}", which is not installed: npm install ${install.join(' ')}`);
    this.name = 'MissingPackageError';
  }
}

/**
 * `require(request)` of an optional peer dependency; a missing package throws a {@link MissingPackageError} whose
 * message names `install` (default: the package) as what to install.
 */
export function optionalPackage<T>(request: string, neededFor: string, install?: string[]): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(request) as T;
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String(err).includes(`'${request}'`);
    if (!missing) throw err;
    const name = request.startsWith('@') ? request.split('/').slice(0, 2).join('/') : request.split('/')[0];
    throw new MissingPackageError(name, neededFor, install);
  }
}
