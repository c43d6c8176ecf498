/**
 * Downloads named after people: the deletion proof's PDF and a person's timesheet carry the
 * employee key in their file name, whatever it is (`李雷`, `Jürgen`, a quote and a `;`). The
 * header is printable ASCII, reads as one attachment with one file name (test/support's strict
 * reader), and that name is the real one (`filename*`), with a plain ASCII `filename` beside it.
 * Through the real server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readDisposition } from '../support/content-disposition';
import { startTestServer, type TestServer } from '../support/harness';

const KEYS = ['李雷', 'Jürgen', 'a"b; filename=evil.exe'];

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  expect((await server.admin.post('/areas/', { name: 'north' })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

/** The download's status and its Content-Disposition as the bytes on the wire (Latin-1, one char a byte). */
async function download(path: string) {
  const res = await fetch(`${server.admin.base}${path}`, { headers: server.admin.headers });
  await res.arrayBuffer();
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition') ?? '' };
}

describe('a download named after a person', () => {
  test.each(KEYS)('the deletion proof of %p: 200, its file name the key itself', async (key) => {
    expect((await server.admin.post('/employees/', { id: key, name: 'x' })).status).toBe(201);
    const enrollee = await server.admin.post('/enrollees/', { employee: key, areas: ['north'] });
    expect(enrollee.status).toBe(201);
    expect((await server.admin.delete(`/enrollees/${enrollee.body.id}/`)).status).toBeLessThan(300);
    const pdf = await download(`/enrollees/${enrollee.body.id}/deletion-proof.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.disposition).toMatch(/^[\x20-\x7e]+$/);
    expect(readDisposition(pdf.disposition)).toEqual({ type: 'attachment', filename: `deletion-proof-${key}.pdf` });
    expect(pdf.disposition).toMatch(/^attachment; filename="deletion-proof-[A-Za-z0-9._-]+\.pdf"; filename\*=UTF-8''/);
  });

  test('a timesheet keeps the key too (reports no longer flatten it to `_`)', async () => {
    const sheet = await download(`/reports/timesheet.csv?employee=${encodeURIComponent('李雷')}&from=2026-02-01&to=2026-02-03`);
    expect(sheet.status).toBe(200);
    expect(readDisposition(sheet.disposition).filename).toBe('timesheet-2026-02-01-2026-02-03-李雷.csv');
    // A name that is plain ASCII already goes as it always did.
    const export_ = await download('/attendance-days/export.csv?from=2026-02-01&to=2026-02-03');
    expect(export_.disposition).toBe('attachment; filename="attendance-2026-02-01-2026-02-03.csv"');
  });
});
