// registerSearchAttributes (what createWorker runs at start): adds what a namespace lacks, fails naming the commands
// when the server refuses to add them, and only warns when it cannot even list them.
import { registerSearchAttributes, SearchAttributesMissingError } from '../../config';
import { fakeOperatorConnection, SEARCH_ATTRIBUTES_BESIDES_TENANT } from '../helpers/search-attributes';

describe('registerSearchAttributes', () => {
  beforeEach(() => {
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  const connection = fakeOperatorConnection;

  it('adds the missing ones and nothing when all are there', async () => {
    const add = jest.fn(async () => ({}));
    expect(await registerSearchAttributes(connection({ AgioTenant: 2 }, add), 'ns', 'agio worker')).toEqual(
      Object.keys(SEARCH_ATTRIBUTES_BESIDES_TENANT),
    );
    // each with its own type: keywords, a keyword list and a datetime
    expect(add).toHaveBeenCalledWith({ namespace: 'ns', searchAttributes: SEARCH_ATTRIBUTES_BESIDES_TENANT });
    const all = { AgioTenant: 2, ...SEARCH_ATTRIBUTES_BESIDES_TENANT };
    expect(await registerSearchAttributes(connection(all, add), 'ns', 'agio worker')).toEqual([]);
    expect(add).toHaveBeenCalledTimes(1);
  });

  it('fails naming the exact commands when the server refuses to add them', async () => {
    const refused = connection({ AgioTenant: 2, AgioRootRunId: 2, AgioRescuedFrom: 2 }, async () =>
      Promise.reject(new Error('7 PERMISSION_DENIED: denied')),
    );
    const err = (await registerSearchAttributes(refused, 'prod', 'agio worker').catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(SearchAttributesMissingError);
    expect(err.message).toBe(
      'agio worker: namespace "prod" has no search attributes AgioAgent, AgioWaiting, AgioWaitingSince, ' +
        'AgioWaitingTenant, which runs are started with or keep, and the server refused to register them ' +
        '(7 PERMISSION_DENIED: denied). Register them once with: temporal operator search-attribute create ' +
        '--namespace prod --name AgioAgent --type Keyword --name AgioWaiting --type KeywordList --name AgioWaitingSince ' +
        '--type Datetime --name AgioWaitingTenant --type Keyword (Temporal Cloud: tcld namespace search-attributes ' +
        'add --namespace prod --sa "AgioAgent=Keyword" --sa "AgioWaiting=KeywordList" --sa "AgioWaitingSince=Datetime" ' +
        '--sa "AgioWaitingTenant=Keyword")',
    );
  });

  it('only warns, with the commands, when it cannot list them', async () => {
    const unlisted = { operatorService: { listSearchAttributes: async () => Promise.reject(new Error('denied')) } };
    expect(await registerSearchAttributes(unlisted as never, 'ns', 'agio worker')).toBeUndefined();
    expect(console.warn).toHaveBeenCalledWith(expect.stringContaining('temporal operator search-attribute create'));
  });
});
