// Optional peer dependencies: a present one loads, a missing one fails with an error naming the package to install.
import { MissingPackageError, optionalPackage } from '../../common/optional-package';

describe('optionalPackage', () => {
  it('loads an installed package', () => {
    expect(optionalPackage<typeof import('yaml')>('yaml', 'Agents files').parse('a: 1')).toEqual({ a: 1 });
  });

  it('names the missing package (the package of a subpath) and what needs it', () => {
    const load = () => optionalPackage('@agio-absent/peer/client/index.js', 'The thing');
    expect(load).toThrow(MissingPackageError);
    expect(load).toThrow(
      'The thing needs the package "@agio-absent/peer", which is not installed: npm install @agio-absent/peer',
    );
  });
});
