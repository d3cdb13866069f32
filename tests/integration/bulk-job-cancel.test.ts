// Stopping a bulk job over HTTP once it has ended: the job is still the tenant's (GET /bulk/:id answers its report), so
// POST /bulk/:id/cancel answers 409 bulk_job_ended rather than a 404 that says it does not exist; another tenant's job
// and an unknown id stay 404.
import { randomUUID } from 'node:crypto';
import { request } from '../helpers/bridge';
import { useTestBed } from '../helpers/test-bed';
import { waitFor } from '../helpers/workflow-agents';

const TENANT = `bulkend${randomUUID().slice(0, 8)}`;
const ADMIN = 'bulk-ended-admin';
const OTHER = 'bulk-ended-other';

describe('cancelling a bulk job that has ended', () => {
  const bed = useTestBed({
    bridge: { tokens: `${ADMIN}:${TENANT}:ops:read+control+admin,${OTHER}:other-${TENANT}:eve:read+control+admin` },
  });

  it('answers 409 bulk_job_ended for an ended job, 404 for an unknown or foreign one', async () => {
    // A job whose filter matches no run ends at once.
    const started = await request(`${bed.bridge.url}/bulk`, {
      token: ADMIN,
      body: { action: 'pause', filter: { agent: `nobody-${randomUUID().slice(0, 8)}` } },
    });
    expect(started.status).toBe(202);
    const { jobId } = started.body;
    await waitFor('the job completed', async () => {
      const { body } = await request(`${bed.bridge.url}/bulk/${jobId}`, { token: ADMIN });
      return body.state === 'completed';
    });

    const cancel = (token: string, id = jobId) =>
      request(`${bed.bridge.url}/bulk/${id}/cancel`, { token, method: 'POST' });
    const ended = await cancel(ADMIN);
    expect(ended.status).toBe(409);
    expect(ended.body.error).toMatchObject({ code: 'bulk_job_ended' });
    expect(ended.body.error.message).toMatch(/completed/);
    expect((await cancel(OTHER)).status).toBe(404);
    expect((await cancel(ADMIN, `bulk-${randomUUID()}`)).status).toBe(404);
  });
});
