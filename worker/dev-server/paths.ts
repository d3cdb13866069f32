// Where Agio keeps its local tools and data: found from this file upward, so it works from sources and dist/.
import fs from 'node:fs';
import path from 'node:path';

/** The repository root: the nearest ancestor of this file holding Agio's package.json. */
export function projectRoot(): string {
  let dir = __dirname;
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, 'utf8')).name === 'agio') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find Agio's package.json above ${__dirname}`);
    dir = parent;
  }
}

/** Directory for binaries Agio installs itself (`.tools/bin`). */
export function toolsBinDir(): string {
  return path.join(projectRoot(), '.tools', 'bin');
}
