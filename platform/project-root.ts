// Where Agio's own files are (the example agents, the prebuilt bundle, `.tools/`): found from this file upward, so
// it works from the sources, from dist/ and from an installed package.
import fs from 'node:fs';
import path from 'node:path';

/** The package root: the nearest ancestor of this file holding Agio's package.json. */
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
